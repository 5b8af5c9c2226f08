// The CLI end to end through the real bin: help, new, list (text and JSON), exit codes.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

describe("kgate CLI", () => {
  it("prints help for the program and each verb, with exit 0", () => {
    const top = kgate(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/list \[options\]/);
    expect(top.stdout).toMatch(/new \[options\] <id>/);
    const verb = kgate(["new", "--help"]);
    expect(verb.code).toBe(0);
    expect(verb.stdout).toMatch(/--gate <kind>/);
  });

  it("prints the version of package.json with --version and -V, exit 0", () => {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../package.json"), "utf8"));
    for (const flag of ["--version", "-V"]) {
      const shown = kgate([flag]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toBe(`${pkg.version}\n`);
    }
  });

  it("exits 2 on an unknown verb or a bad option value", () => {
    expect(kgate(["frobnicate"]).code).toBe(2);
    const project = tempProject();
    const bad = kgate(["--root", project.root, "new", "demo", "--gate", "recipe"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are convention, operator/);
  });

  it("`new demo` then `list` shows the new task as valid", () => {
    const project = tempProject();
    const created = kgate(["new", "demo"], { cwd: project.root });
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/created task "demo"/);
    const listed = kgate(["list"], { cwd: project.root });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^valid\s+demo/m);
    const again = kgate(["new", "demo"], { cwd: project.root });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
  });

  it("lists a broken task with file and field while the others still list, exit 1", () => {
    const project = tempProject();
    kgate(["--root", project.root, "new", "good"]);
    kgate(["--root", project.root, "new", "broken"]);
    const file = path.join(project.tasks, "broken", "task.json");
    const spec = JSON.parse(readFileSync(file, "utf8"));
    spec.limits.timeoutSec = "soon";
    writeFileSync(file, JSON.stringify(spec));
    const text = kgate(["--root", project.root, "list"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^invalid broken/m);
    expect(text.stdout).toMatch(/tasks\/broken\/task\.json: limits\.timeoutSec: expected number, got string/);
    expect(text.stdout).toMatch(/^valid\s+good/m);
    const json = kgate(["--root", project.root, "list", "--json"]);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.tasks.map((t: { id: string; valid: boolean }) => [t.id, t.valid])).toEqual([
      ["broken", false],
      ["good", true],
    ]);
    expect(parsed.tasks[1].digests.artefact).toMatch(/^[0-9a-f]{64}$/);
  });
});
