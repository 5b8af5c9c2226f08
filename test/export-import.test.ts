// `kgate import harbor <dir>`: a Harbor task folder becomes a kgate task skeleton (instruction
// bytes unchanged, the files the Dockerfile copies into its WORKDIR as the environment, solution,
// limits, a verifier stub, Harbor's own files kept aside); round trip of an exported library task.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { listFiles, loadTask, loadValidTask } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));

/** A Terminal-Bench-style task folder: WORKDIR /app, data copied there, a file copied elsewhere. */
function harborFolder(files: Record<string, string>): string {
  const dir = path.join(tempProject().root, "csv-summary");
  const all: Record<string, string> = {
    "task.toml":
      'version = "1.0"\n[task]\nname = "acme/csv-summary"\ndescription = "Summarise a CSV"\n[metadata]\ncategory = "data"\n[agent]\ntimeout_sec = 120.0\n[environment]\nmemory_mb = 2048\nallow_internet = true\n',
    "instruction.md":
      "<!-- harbor-canary GUID 1234 -->\nSummarise /app/data/input.csv into /app/summary.txt.\n",
    "environment/Dockerfile":
      "FROM python:3.12-slim\nWORKDIR /app\nCOPY data/ /app/data/\nCOPY notes.txt /opt/notes.txt\n",
    "environment/data/input.csv": "a,b\n1,2\n",
    "environment/notes.txt": "build notes\n",
    "tests/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n",
    "solution/solve.sh": "#!/bin/bash\necho 3 > summary.txt\n",
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("kgate import harbor", () => {
  it("round-trips an exported library task: instruction, data and limits come back unchanged", () => {
    const original = loadValidTask(repo, "bom-costing");
    const out = tempProject().root;
    expect(
      kgate(["--root", repo.root, "export", "harbor", "bom-costing", "--condition", "-A", "--out", out]).code,
    ).toBe(0);
    const project = tempProject();
    const imported = kgate([
      "--root",
      project.root,
      "import",
      "harbor",
      path.join(out, "bom-costing-minus-a"),
      "--id",
      "bom-again",
      "--json",
    ]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      id: "bom-again",
      warnings: [expect.stringContaining("Dockerfile is kept")],
    });

    const result = loadTask(project, "bom-again");
    expect(result.ok).toBe(true);
    const task = result.ok ? result.task : undefined!;
    expect(task.instruction.equals(original.instruction)).toBe(true);
    expect(task.environment.map((f) => [f.path, f.sha256])).toEqual(
      original.environment.map((f) => [f.path, f.sha256]),
    );
    expect(task.digests.environment).toBe(original.digests.environment);
    expect(task.spec.limits).toMatchObject({ timeoutSec: 900, memoryMb: 1024, cpus: 1 });
    expect(task.spec.network).toBe(false);
    const kept = listFiles(path.join(project.tasks, "bom-again", "harbor"));
    expect(kept).toEqual(
      expect.arrayContaining(["task.toml", "tests/test.sh", "tests/verify.mjs", "environment/Dockerfile"]),
    );
    expect(listFiles(path.join(project.tasks, "bom-again", "solution")).sort()).toEqual([
      "kgate/solve.py",
      "solve.sh",
    ]);
    expect(readFileSync(path.join(project.verifiers, "bom-again.ts"), "utf8")).toContain(
      "port tasks/bom-again/harbor/tests/test.sh",
    );
  });

  it("maps a Terminal-Bench-style folder: WORKDIR copies become the environment, the rest is kept and named", () => {
    const project = tempProject();
    const result = kgate(["--root", project.root, "import", "harbor", harborFolder({})]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("imported csv-summary into tasks/csv-summary");
    expect(result.stderr).toContain(
      "1 file(s) of environment/ are not copied into the Dockerfile's WORKDIR by a plain COPY (kept under harbor/environment/): notes.txt",
    );
    const task = loadValidTask(project, "csv-summary");
    expect(task.environment.map((f) => f.path)).toEqual(["data/input.csv"]);
    expect(task.instruction.toString()).toBe(
      "<!-- harbor-canary GUID 1234 -->\nSummarise /app/data/input.csv into /app/summary.txt.\n",
    );
    expect(task.spec).toMatchObject({
      title: "Summarise a CSV",
      domain: "data",
      network: true,
      limits: { timeoutSec: 120, memoryMb: 2048 },
      solution: { command: 'bash "$KGATE_SOLUTION_DIR/solve.sh"' },
    });
    expect(
      readFileSync(path.join(project.tasks, "csv-summary", "harbor/environment/notes.txt"), "utf8"),
    ).toBe("build notes\n");
    // The imported skeleton can be leak-audited (exit 0 clean or 1 findings; 2 would mean it cannot be).
    expect([0, 1]).toContain(kgate(["--root", project.root, "audit", "csv-summary"]).code);
  });

  it("names the file, line and field of a bad task.toml, and what a folder lacks", () => {
    const project = tempProject();
    const syntax = kgate([
      "--root",
      project.root,
      "import",
      "harbor",
      harborFolder({ "task.toml": "[agent]\ntimeout_sec = \n" }),
    ]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(/csv-summary\/task\.toml: line 2, column \d+: invalid TOML/);
    const field = kgate([
      "--root",
      project.root,
      "import",
      "harbor",
      harborFolder({ "task.toml": '[environment]\nmemory_mb = "2G"\n' }),
    ]);
    expect(field.code).toBe(2);
    expect(field.stderr).toContain("task.toml: environment.memory_mb: expected number, received string");
    const bare = path.join(tempProject().root, "empty-task");
    mkdirSync(bare);
    const missing = kgate(["--root", project.root, "import", "harbor", bare]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      "is not a Harbor task folder: missing task.toml, instruction.md, environment, tests/test.sh",
    );
    const linked = harborFolder({});
    symlinkSync("/etc/passwd", path.join(linked, "environment/data/passwd.csv"));
    const link = kgate(["--root", project.root, "import", "harbor", linked]);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain(
      "environment/data/passwd.csv is a symbolic link; a task folder to import must hold none",
    );
    expect(listFiles(project.root)).toEqual([]);
  });

  it("refuses an id that exists and writes nothing", () => {
    const project = tempProject();
    expect(kgate(["--root", project.root, "import", "harbor", harborFolder({})]).code).toBe(0);
    const before = listFiles(project.root).length;
    const again = kgate(["--root", project.root, "import", "harbor", harborFolder({})]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('task "csv-summary" already exists');
    expect(listFiles(project.root)).toHaveLength(before);
  });
});
