// `kgate audit` and `kgate hook` through the real argv parser and verb modules, in the test's
// process (cli-in-process.ts): exit codes, redaction, formats, --staged on the git index, and a
// pre-commit hook that blocks a leaking commit (plain git and husky layouts).
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { corpusFile, writeAuditTask } from "./support/audit-task.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject } from "./support/project.ts";

const leak = `${corpusFile("instruction.md")}\nMissing prices follow the ZERO_FILL rule.\n`;

function git(cwd: string, ...args: string[]) {
  const r = spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd,
    encoding: "utf8",
  });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

function repo() {
  const paths = tempProject();
  git(paths.root, "init", "-q");
  return paths;
}

describe("kgate audit", () => {
  it("exits 0 on clean tasks, 1 on a leak, and hides the matched value unless --show", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "clean");
    writeAuditTask(paths, "leaky", { instruction: leak });
    const clean = await kgateInProcess(["--root", paths.root, "audit", "clean"]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/clean: no leaks/);
    const all = await kgateInProcess(["--root", paths.root, "audit"]);
    expect(all.code).toBe(1);
    expect(all.stdout).toMatch(/tasks\/leaky\/instruction\.md:9:27 {2}gated string "zero-fill"/);
    expect(all.stdout).not.toContain("ZERO_FILL");
    expect(all.stdout).toMatch(/\[hidden: 9 chars; --show reveals\]/);
    expect((await kgateInProcess(["--root", paths.root, "audit", "--show"])).stdout).toContain('"ZERO_FILL"');
  });

  it("prints JSON and SARIF for machines, both redacted by default", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "leaky", { instruction: leak });
    const json = await kgateInProcess(["--root", paths.root, "audit", "--json"]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      counts: { error: 1 },
      exitCode: 1,
      tasks: [{ id: "leaky", status: "findings" }],
    });
    expect(json.stdout).not.toContain("ZERO_FILL");
    const sarif = await kgateInProcess(["--root", paths.root, "audit", "--format", "sarif"]);
    expect(sarif.code).toBe(1);
    expect(JSON.parse(sarif.stdout)).toMatchObject({
      version: "2.1.0",
      runs: [{ results: [{ ruleId: "gated-string" }] }],
    });
  });

  it("exits 2 on a missing audit file or an unknown task, naming the file", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t");
    const unknown = await kgateInProcess(["--root", paths.root, "audit", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no task "nope"/);
    writeFileSync(path.join(paths.audits, "t.json"), '{"items": [{"id": "x", "kind": "colour"}]}');
    const invalid = await kgateInProcess(["--root", paths.root, "audit"]);
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toMatch(/audits\/t\.json: items\[0\]\.kind/);
  });

  it("validates what it reads of task.json (the artefact's path) and leaves the rest to kgate check", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "t");
    const taskFile = path.join(paths.tasks, "t", "task.json");
    const task = JSON.parse(readFileSync(taskFile, "utf8"));
    writeFileSync(taskFile, JSON.stringify({ ...task, limits: { cpus: "many" } }));
    expect((await kgateInProcess(["--root", paths.root, "audit"])).code).toBe(0);
    expect((await kgateInProcess(["--root", paths.root, "check", "t", "--no-sandbox"])).stdout).toMatch(
      /limits\.cpus/,
    );

    writeFileSync(taskFile, JSON.stringify({ ...task, artefact: { ...task.artefact, path: "../up.md" } }));
    const outside = await kgateInProcess(["--root", paths.root, "audit"]);
    expect(outside.code).toBe(2);
    expect(outside.stdout).toMatch(/tasks\/t\/task\.json: artefact\.path: must be a relative path/);
    writeFileSync(taskFile, JSON.stringify({ ...task, artefact: {} }));
    const missing = await kgateInProcess(["--root", paths.root, "audit"]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toMatch(
      /tasks\/t\/task\.json: artefact\.path: required field missing \(expected string\)/,
    );
  });
});

describe("kgate audit --staged", () => {
  it("audits the staged content of the touched tasks only, not the working tree", async () => {
    const paths = repo();
    writeAuditTask(paths, "a");
    writeAuditTask(paths, "b", { instruction: leak });
    git(paths.root, "add", "-A");
    // b leaks but is not touched by a staged change: nothing to audit.
    git(paths.root, "commit", "-qm", "init", "--no-verify");
    expect((await kgateInProcess(["--root", paths.root, "audit", "--staged"])).code).toBe(0);

    const instruction = path.join(paths.tasks, "a", "instruction.md");
    writeFileSync(instruction, leak);
    git(paths.root, "add", instruction);
    writeFileSync(instruction, corpusFile("instruction.md"));
    const staged = await kgateInProcess(["--root", paths.root, "audit", "--staged", "--json"]);
    expect(staged.code).toBe(1);
    expect(JSON.parse(staged.stdout).tasks.map((t: { id: string }) => t.id)).toEqual(["a"]);
    // the refusal says how to fix the finding or allowlist it, and where
    expect(staged.stderr).toContain("kgate audit --staged: the commit is refused: ");
    expect(staged.stderr).toContain("fix: take the gated value out of the named file and line");
    expect(staged.stderr).toContain('add {"fingerprint": "<its fingerprint above>", "reason": ');
    expect(staged.stderr).toContain('to "allowlist" in audits/a.json');

    git(paths.root, "add", instruction);
    writeFileSync(instruction, leak);
    expect((await kgateInProcess(["--root", paths.root, "audit", "--staged"])).code).toBe(0);
  });

  it("exits 2 outside a git repository", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "a");
    const result = await kgateInProcess(["--root", paths.root, "audit", "--staged"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--staged: git diff failed/);
  });
});

describe("kgate hook", () => {
  it("installs a pre-commit hook that blocks a leaking commit, and uninstalls it", async () => {
    const paths = repo();
    writeAuditTask(paths, "a");
    const installed = await kgateInProcess(["--root", paths.root, "hook", "install"]);
    expect(installed.code).toBe(0);
    const hook = path.join(paths.root, ".git", "hooks", "pre-commit");
    expect(readFileSync(hook, "utf8")).toMatch(/audit --staged/);
    git(paths.root, "add", "-A");
    expect(git(paths.root, "commit", "-qm", "clean").code).toBe(0);
    writeFileSync(path.join(paths.tasks, "a", "instruction.md"), leak);
    git(paths.root, "add", "-A");
    const blocked = git(paths.root, "commit", "-qm", "leak");
    expect(blocked.code).not.toBe(0);
    expect(blocked.out).toMatch(/gated string "zero-fill"/);
    expect(blocked.out).toMatch(
      /the commit is refused: .*\n {2}fix: .*\n {2}or, for a false alarm, allowlist the finding: .*audits\/a\.json/,
    );
    expect((await kgateInProcess(["--root", paths.root, "hook", "uninstall"])).code).toBe(0);
    expect(existsSync(hook)).toBe(false);
    expect(git(paths.root, "commit", "-qm", "leak").code).toBe(0);
  });

  it("adds itself to husky's .husky/pre-commit and keeps an existing hook's lines", async () => {
    const paths = repo();
    writeAuditTask(paths, "a");
    mkdirSync(path.join(paths.root, ".husky", "_"), { recursive: true });
    git(paths.root, "config", "core.hooksPath", ".husky/_");
    const user = path.join(paths.root, ".husky", "pre-commit");
    writeFileSync(user, "npm run lint-staged\n");
    chmodSync(user, 0o755);
    expect((await kgateInProcess(["--root", paths.root, "hook", "install"])).stdout).toMatch(
      /added the audit to \.husky\/pre-commit \(husky\)/,
    );
    expect((await kgateInProcess(["--root", paths.root, "hook", "install"])).stdout).toMatch(/updated/);
    const text = readFileSync(user, "utf8");
    expect(text.startsWith("npm run lint-staged\n")).toBe(true);
    expect(text.match(/audit --staged/g)).toHaveLength(1);
    await kgateInProcess(["--root", paths.root, "hook", "uninstall"]);
    expect(readFileSync(user, "utf8")).toBe("npm run lint-staged\n");
  });

  it("ships a pre-commit framework hook that runs the staged audit", async () => {
    const text = readFileSync(path.resolve(import.meta.dirname, "../.pre-commit-hooks.yaml"), "utf8");
    expect(text).toMatch(/^- id: kgate-audit$/m);
    expect(text).toMatch(/^ {2}entry: kgate audit --staged$/m);
    expect(text).toMatch(/^ {2}pass_filenames: false$/m);
  });
});
