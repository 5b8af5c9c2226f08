// The exported verifier (tests/verify.mjs + tests/verifier.mjs) on attacker-controlled outputs:
// links, folders, oversized and garbage files give reward 0 with a reason, never a crash; and the
// export verb's errors (unknown task, existing folder, bad condition) name what is wrong.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { exportCanary } from "../src/export/index.ts";
import { projectPaths } from "../src/project.ts";
import { loadValidTask } from "../src/task/index.ts";
import { loadVerifier, renderAnswers, solveRaw } from "../src/verify/index.ts";
import { kgate } from "./support/cli.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject } from "./support/project.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const task = loadValidTask(repo, "bom-costing");
const output = task.spec.outputs[0]!;
const out = tempProject("file").root;
const exported = await kgateInProcess([
  "--root",
  repo.root,
  "export",
  "harbor",
  "bom-costing",
  "--condition",
  "+A",
  "--out",
  out,
]);
const tests = path.join(out, "bom-costing-plus-a", "tests");

/** Runs the bundled verifier on the host's node over a work directory prepared by `prepare`. */
function verify(prepare: (work: string) => void) {
  const root = tempProject().root;
  const work = path.join(root, "work");
  const logs = path.join(root, "logs");
  mkdirSync(path.join(work, path.dirname(output.path)), { recursive: true });
  mkdirSync(logs);
  prepare(work);
  const run = spawnSync(process.execPath, [path.join(tests, "verify.mjs"), work, logs], { encoding: "utf8" });
  const verdict = JSON.parse(readFileSync(path.join(logs, "verdict.json"), "utf8")).verdict;
  return { code: run.status, reward: readFileSync(path.join(logs, "reward.txt"), "utf8").trim(), verdict };
}

async function referenceBytes(): Promise<Buffer> {
  const loaded = await loadVerifier(task);
  return renderAnswers(task, loaded, solveRaw(task, loaded, "artefact"))[0]!.bytes!;
}

describe("every evaluation export: canary, manifest, warning", () => {
  it("marks each script, Dockerfile, verifier and task.toml kgate wrote, and leaves the task's own bytes", () => {
    const canary = exportCanary(task);
    const folder = path.join(out, "bom-costing-plus-a");
    const marked = ["task.toml", "environment/Dockerfile", "tests/test.sh", "tests/verify.mjs"];
    for (const file of [...marked, "tests/verifier.mjs", "tests/manifest.json", "solution/solve.sh"]) {
      expect(readFileSync(path.join(folder, file), "utf8"), file).toContain(canary);
    }
    expect(readFileSync(path.join(folder, "tests/test.sh"), "utf8").startsWith("#!")).toBe(true);
    expect(readFileSync(path.join(folder, "instruction.md"))).toEqual(
      readFileSync(path.join(repo.tasks, "bom-costing", "instruction.md")),
    );
    expect(exported.stderr).toContain("publishing them defeats the gate");
  });

  it("lists each folder in manifest.jsonl with its digests and canary (evaluation: no images, no run)", () => {
    const lines = readFileSync(path.join(out, "manifest.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        task: "bom-costing",
        condition: "+A",
        variant: null,
        form: "harbor",
        path: "bom-costing-plus-a",
        digests: expect.objectContaining({ task: task.digests.task, artefact: task.artefact.sha256 }),
        calibration: null,
        images: null,
        canary: exportCanary(task),
      }),
    ]);
  });

  it("marks BenchFlow's native folder too (oracle/, verifier/)", async () => {
    const bench = tempProject("file").root;
    const run = await kgateInProcess([
      "--root",
      repo.root,
      "export",
      "benchflow",
      "bom-costing",
      "--condition",
      "-A",
      "--out",
      bench,
    ]);
    expect(run.code).toBe(0);
    const folder = path.join(bench, "bom-costing-without-skill");
    for (const file of ["environment/Dockerfile", "oracle/solve.sh", "verifier/test.sh"]) {
      expect(readFileSync(path.join(folder, file), "utf8"), file).toContain(exportCanary(task));
    }
    const line = JSON.parse(readFileSync(path.join(bench, "manifest.jsonl"), "utf8"));
    expect([line.form, line.path, line.digests.artefact]).toEqual([
      "benchflow",
      "bom-costing-without-skill",
      null,
    ]);
  });
});

describe("the bundled verifier on hostile outputs", () => {
  it("exports only the condition asked for", async () => {
    expect(exported.code).toBe(0);
    expect(exported.stdout.trim().split("\n")).toEqual([
      `bom-costing +A  ${path.join(out, "bom-costing-plus-a")}`,
    ]);
  });

  it("passes the reference answer (the control: the harness can say 1)", async () => {
    const bytes = await referenceBytes();
    const result = verify((work) => writeFileSync(path.join(work, output.path), bytes));
    expect(result).toMatchObject({ code: 0, reward: "1", verdict: { status: "pass" } });
  });

  it("does not follow a link to the reference answer", async () => {
    const bytes = await referenceBytes();
    const result = verify((work) => {
      writeFileSync(path.join(work, "elsewhere.csv"), bytes);
      symlinkSync(path.join(work, "elsewhere.csv"), path.join(work, output.path));
    });
    expect(result.reward).toBe("0");
    expect(result.verdict).toMatchObject({ status: "fail", attribution: "format" });
    expect(result.verdict.reason).toContain("is a symbolic link; links are not followed");
  });

  it("rejects a folder on the output's path, and a folder of the path that is a link", async () => {
    const folder = verify((work) => mkdirSync(path.join(work, output.path)));
    expect(folder.reward).toBe("0");
    expect(folder.verdict.reason).toContain("is not a regular file");
    const bytes = await referenceBytes();
    const linked = verify((work) => {
      const real = path.join(work, "real");
      mkdirSync(real);
      writeFileSync(path.join(real, path.basename(output.path)), bytes);
      const parent = path.join(work, path.dirname(output.path));
      spawnSync("rm", ["-r", parent]);
      symlinkSync(real, parent);
    });
    expect(linked.reward).toBe("0");
    expect(linked.verdict.reason).toContain(`${path.dirname(output.path)} is a symbolic link`);
  });

  it("rejects an output over maxBytes without reading it whole", async () => {
    // bom-costing declares maxBytes 65536 for output/assembly_costs.csv: 65537 bytes is one too many.
    expect(output.maxBytes).toBe(65536);
    const result = verify((work) => writeFileSync(path.join(work, output.path), "x".repeat(65537)));
    expect(result.reward).toBe("0");
    expect(result.verdict.reason).toContain("is 65537 bytes, over the cap of 65536 bytes");
  });

  it("fails garbage bytes as a format problem", async () => {
    const result = verify((work) =>
      writeFileSync(path.join(work, output.path), Buffer.from([0xff, 0xfe, 0x00, 0x22])),
    );
    expect(result).toMatchObject({
      code: 0,
      reward: "0",
      verdict: { status: "fail", attribution: "format" },
    });
  });

  it("refuses to judge when the shipped data differ from the manifest", async () => {
    const bytes = await referenceBytes();
    const copy = path.join(tempProject().root, "tests");
    spawnSync("cp", ["-r", tests, copy]);
    writeFileSync(path.join(copy, "environment/prices.csv"), "part,unit_price\n");
    const root = tempProject().root;
    mkdirSync(path.join(root, "work", path.dirname(output.path)), { recursive: true });
    mkdirSync(path.join(root, "logs"));
    writeFileSync(path.join(root, "work", output.path), bytes);
    const run = spawnSync(process.execPath, [
      path.join(copy, "verify.mjs"),
      path.join(root, "work"),
      path.join(root, "logs"),
    ]);
    expect(run.status).toBe(1);
    expect(readFileSync(path.join(root, "logs/reward.txt"), "utf8")).toBe("0\n");
    const verdict = JSON.parse(readFileSync(path.join(root, "logs/verdict.json"), "utf8")).verdict;
    expect(verdict).toMatchObject({
      status: "unverified",
      reason: expect.stringContaining("tests/environment/prices.csv"),
    });
  });

  it("says a missing output was not written", async () => {
    const result = verify(() => {});
    expect(result.reward).toBe("0");
    expect(result.verdict.reason).toContain("the file was not written");
  });
});

describe("kgate export errors", () => {
  it("an unknown task is a usage error naming it", async () => {
    const result = await kgateInProcess([
      "--root",
      repo.root,
      "export",
      "harbor",
      "no-such-task",
      "--out",
      tempProject().root,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no task "no-such-task"');
  });

  it("a bad --condition is a usage error naming the value", async () => {
    const result = await kgateInProcess([
      "--root",
      repo.root,
      "export",
      "harbor",
      "--condition",
      "+B",
      "--out",
      tempProject().root,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--condition +B: expected +A, -A or variant:<name>");
  });

  it("an existing folder is kept unless --force, and the other tasks are still exported", async () => {
    const target = tempProject().root;
    mkdirSync(path.join(target, "bom-costing-minus-a"));
    writeFileSync(path.join(target, "bom-costing-minus-a", "mine.txt"), "keep me");
    const args = ["--root", repo.root, "export", "harbor", "bom-costing", "paper-index", "--condition", "-A"];
    const refused = await kgateInProcess([...args, "--out", target, "--json"]);
    expect(refused.code).toBe(1);
    const report = JSON.parse(refused.stdout);
    expect(report.tasks[0]).toMatchObject({ task: "bom-costing", ok: false });
    expect(report.tasks[0].error).toContain("bom-costing-minus-a exists (pass --force to replace it)");
    expect(report.tasks[1]).toMatchObject({ task: "paper-index", ok: true });
    expect(readFileSync(path.join(target, "bom-costing-minus-a", "mine.txt"), "utf8")).toBe("keep me");
    expect((await kgateInProcess([...args, "--out", target, "--force"])).code).toBe(0);
    expect(
      readFileSync(path.join(target, "bom-costing-minus-a", "instruction.md")).equals(task.instruction),
    ).toBe(true);
  });

  it("--help documents the verb", async () => {
    const help = kgate(["export", "harbor", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--out <dir>");
    expect(help.stdout).toContain("--condition <condition>");
  });
});
