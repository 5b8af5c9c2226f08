// `kgate import harbor <dir>`: a Harbor task folder becomes a kgate task skeleton (instruction
// bytes unchanged, the files the Dockerfile copies into its WORKDIR as the environment, solution,
// limits, a verifier stub, Harbor's own files kept aside); round trip of an exported library task;
// a SkillsBench-style task (skills as the artefact candidate, outputs from the instruction's paths)
// and a BenchFlow task.md; hostile folders (FIFOs, links, huge files) refused by name before any
// read, and nothing half-written.
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeStaged } from "../src/export/import-stage.ts";
import { projectPaths } from "../src/project.ts";
import { listFiles, loadTask, loadValidTask } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject } from "./support/project.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));

/** A Terminal-Bench-style task folder: WORKDIR /app, data copied there, a file copied elsewhere. */
function harborFolder(files: Record<string, string | undefined>): string {
  const dir = path.join(tempProject().root, "csv-summary");
  const all: Record<string, string | undefined> = {
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
    if (text === undefined) continue;
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe("kgate import harbor", () => {
  it("round-trips an exported library task: instruction, data and limits come back unchanged", async () => {
    const original = loadValidTask(repo, "bom-costing");
    const out = tempProject().root;
    expect(
      (
        await kgateInProcess([
          "--root",
          repo.root,
          "export",
          "harbor",
          "bom-costing",
          "--condition",
          "-A",
          "--out",
          out,
        ])
      ).code,
    ).toBe(0);
    const project = tempProject();
    const imported = await kgateInProcess([
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
      layout: "harbor",
      artefact: null,
      warnings: [
        expect.stringContaining("Dockerfile is kept"),
        expect.stringContaining("no output path found in the instruction"),
      ],
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
    // The Dockerfile builds the image: never environment data, nor a generator of kgate new's template.
    expect(task.environment.map((f) => f.path)).not.toContain("Dockerfile");
    expect(listFiles(path.join(project.tasks, "bom-again")).some((f) => f.startsWith("generate."))).toBe(
      false,
    );
  });

  it("maps a Terminal-Bench-style folder: WORKDIR copies become the environment, the rest is kept and named", async () => {
    const project = tempProject();
    const result = await kgateInProcess(["--root", project.root, "import", "harbor", harborFolder({})]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("imported csv-summary (harbor layout) into tasks/csv-summary");
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
    expect([0, 1]).toContain((await kgateInProcess(["--root", project.root, "audit", "csv-summary"])).code);
  });

  it("names the file, line and field of a bad task.toml, and what a folder lacks", async () => {
    const project = tempProject();
    const syntax = await kgateInProcess([
      "--root",
      project.root,
      "import",
      "harbor",
      harborFolder({ "task.toml": "[agent]\ntimeout_sec = \n" }),
    ]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(/csv-summary\/task\.toml: line 2, column \d+: invalid TOML/);
    const field = await kgateInProcess([
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
    const missing = await kgateInProcess(["--root", project.root, "import", "harbor", bare]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      "is not a Harbor task folder: missing task.toml, instruction.md, environment, tests/test.sh",
    );
    const linked = harborFolder({});
    symlinkSync("/etc/passwd", path.join(linked, "environment/data/passwd.csv"));
    const link = await kgateInProcess(["--root", project.root, "import", "harbor", linked]);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain(
      "environment/data/passwd.csv is a symbolic link; a task folder to import must hold none",
    );
    expect(listFiles(project.root)).toEqual([]);
  });

  it("refuses an id that exists and writes nothing", async () => {
    const project = tempProject();
    expect((await kgateInProcess(["--root", project.root, "import", "harbor", harborFolder({})])).code).toBe(
      0,
    );
    const before = listFiles(project.root).length;
    const again = await kgateInProcess(["--root", project.root, "import", "harbor", harborFolder({})]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('task "csv-summary" already exists');
    expect(listFiles(project.root)).toHaveLength(before);
  });
});

/** A SkillsBench-style folder: WORKDIR /root, data in /root/data, skills baked into the agents' folders. */
function skillsFolder(): string {
  return harborFolder({
    "task.toml":
      'version = "1.0"\n[metadata]\ncategory = "hydrology"\n[agent]\ntimeout_sec = 300.0\n[environment]\nmemory_mb = 4096\n',
    "instruction.md":
      "My data is in `/root/data/`, which includes `levels.csv`.\n\nFirst, output the 'trend.csv' in '/root/output/'. Then write /root/output/summary.json.\n",
    "environment/Dockerfile":
      "FROM ubuntu:24.04\nWORKDIR /root\nCOPY data/ /root/data/\nCOPY skills /root/.claude/skills\nCOPY skills /root/.codex/skills\n",
    "environment/data/input.csv": undefined,
    "environment/notes.txt": undefined,
    "environment/data/levels.csv": "year,level\n2000,1.5\n2001,1.7\n",
    "environment/skills/sen-slope/SKILL.md":
      "---\nname: sen-slope\ndescription: Trend of a series by Sen's slope, in the hydrology office's way.\n---\n\n# Sen's slope\n\nUse the median of pairwise slopes; report it to 3 decimals.\n",
    "environment/skills/sen-slope/scripts/slope.sh": "#!/bin/sh\necho slope\n",
    "solution/solve.sh": "#!/bin/bash\nmkdir -p /root/output\n",
  });
}

describe("kgate import harbor: SkillsBench and BenchFlow tasks", () => {
  it("proposes the skills as the artefact, maps the outputs, and checks up to the curator's steps", async () => {
    const project = tempProject();
    const result = await kgateInProcess([
      "--root",
      project.root,
      "import",
      "harbor",
      skillsFolder(),
      "--json",
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      artefact: { path: "docs/internal/sen-slope.md", skills: ["sen-slope"] },
      // /root/output/ under WORKDIR /root is output/ of the work directory.
      outputs: ["output/summary.json", "output/trend.csv"],
    });
    expect(report.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining("are its knowledge, not data: proposed as the artefact candidate"),
        expect.stringMatching(
          /instruction\.md names absolute paths \(\/root\/data\/, \/root\/output\/.*the curator's step/,
        ),
      ]),
    );
    const task = loadValidTask(project, "csv-summary");
    // The skills never become data (no .claude/ or .codex/ folder in the environment).
    expect(task.environment.map((f) => f.path)).toEqual(["data/levels.csv"]);
    expect(task.spec.outputs.map((o) => [o.path, o.format])).toEqual([
      ["output/summary.json", "json"],
      ["output/trend.csv", "csv"],
    ]);
    const artefact = readFileSync(path.join(project.artefacts, "csv-summary", "artefact.md"), "utf8");
    expect(artefact).toMatch(
      /^<!-- kgate-canary: [0-9a-f-]{36} -->\n# Sen's slope\n\nUse the median of pairwise slopes; report it to 3 decimals\.\n$/,
    );
    expect(task.spec.artefact.description).toBe(
      "Trend of a series by Sen's slope, in the hydrology office's way.",
    );
    expect(listFiles(path.join(project.tasks, "csv-summary", "harbor"))).toEqual(
      expect.arrayContaining([
        "environment/skills/sen-slope/SKILL.md",
        "environment/skills/sen-slope/scripts/slope.sh",
      ]),
    );

    const check = await kgateInProcess([
      "--root",
      project.root,
      "check",
      "csv-summary",
      "--no-sandbox",
      "--json",
    ]);
    const checks = Object.fromEntries(
      (JSON.parse(check.stdout).tasks[0].checks as Array<{ id: string; status: string; detail: string }>).map(
        (c) => [c.id, c],
      ),
    );
    // What kgate can check passes; what fails names the curator's step (variants, the output
    // contract's TODOs, the verifier stub): never a schema error, never the template's generator.
    expect(checks.schema!.status).toBe("pass");
    expect(checks.digests!.status).toBe("pass");
    expect(checks.generator!.status).toBe("unavailable");
    expect(checks.verifier!.status).toBe("pass");
    expect(checks["leak-audit"]!.status).toBe("pass");
    expect(checks.leftovers!.detail).toMatch(
      /TODO marker\(s\) left: tasks\/csv-summary\/task\.json:\d+, .*artefacts\/csv-summary\/variants\/perturbed\.md:2/,
    );
    for (const id of ["deterministic", "default", "variant:perturbed", "variant:compressed"]) {
      expect(checks[id]!.detail, id).toContain("is a stub imported from Harbor (the curator's step)");
    }
  });

  it("reads a BenchFlow task.md: its prompt is the instruction, its front matter the limits", async () => {
    const dir = path.join(tempProject().root, "bf-task");
    const files: Record<string, string> = {
      "task.md":
        "---\nschema_version: '1.3'\ntask:\n  name: acme/bf-task\n  description: Count the rows\nagent:\n  timeout_sec: 240\nsandbox:\n  cpus: 2\n  memory_mb: 3072\n  network_mode: no-network\n---\n\n## prompt\n\nCount the rows of `rows.csv` into `count.txt`.\n\\## prompt\n",
      "environment/Dockerfile": "FROM debian\nWORKDIR /app\nCOPY rows.csv /app/rows.csv\n",
      "environment/rows.csv": "a\n1\n2\n",
      "verifier/test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n",
      "oracle/solve.sh": "#!/bin/bash\nwc -l < rows.csv > count.txt\n",
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const project = tempProject();
    const result = await kgateInProcess(["--root", project.root, "import", "harbor", dir, "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      layout: "benchflow",
      kept: ["task.md", "verifier", "environment/Dockerfile"],
    });
    const task = loadValidTask(project, "bf-task");
    // BenchFlow's prompt: the ## prompt section, stripped, its escaped heading restored.
    expect(task.instruction.toString()).toBe("Count the rows of `rows.csv` into `count.txt`.\n## prompt\n");
    expect(task.spec).toMatchObject({
      title: "Count the rows",
      network: false,
      limits: { timeoutSec: 240, cpus: 2, memoryMb: 3072 },
    });
    expect(task.environment.map((f) => f.path)).toEqual(["rows.csv"]);
    expect(listFiles(path.join(project.tasks, "bf-task", "solution"))).toEqual(["solve.sh"]);
    writeFileSync(path.join(dir, "task.md"), "---\nagent:\n  timeout_sec: [\n---\nx\n");
    const broken = await kgateInProcess([
      "--root",
      project.root,
      "import",
      "harbor",
      dir,
      "--id",
      "bf-broken",
    ]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/bf-task\/task\.md: line \d+, column \d+: invalid YAML/);
  });
});

describe("kgate import harbor: hostile folders", () => {
  /** The project is empty afterwards: nothing written, no staging folder left. */
  const untouched = (root: string) => expect(readdirSync(root)).toEqual([]);

  it.each([
    ["task.toml", "task.toml"],
    ["instruction.md", "instruction.md"],
    ["a data file", "environment/data/pipe.csv"],
  ])("refuses a FIFO as %s by name, at once, writing nothing", (_what, file) => {
    const dir = harborFolder({});
    execFileSync("rm", ["-f", path.join(dir, file)]);
    execFileSync("mkfifo", [path.join(dir, file)]);
    const project = tempProject();
    // Before the fix a FIFO task.toml or instruction.md blocked the read forever: a 20 s bound tells.
    const result = kgate(["--root", project.root, "import", "harbor", dir], { timeoutMs: 20_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `csv-summary/${file} is a FIFO (named pipe); a task folder to import must hold regular files and folders only`,
    );
    untouched(project.root);
  });

  it("refuses a hard link to a file outside, and a file over the task size cap", async () => {
    const project = tempProject();
    const linked = harborFolder({});
    const outside = path.join(tempProject().root, "secret.json");
    writeFileSync(outside, "{}\n");
    linkSync(outside, path.join(linked, "environment/data/hard.json"));
    const link = await kgateInProcess(["--root", project.root, "import", "harbor", linked]);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain("environment/data/hard.json is a hard link (2 names for one file)");
    untouched(project.root);

    // A 3 GiB sparse file takes no disk here, but a task file may have at most 64 MiB (the
    // environment file cap): 3 x 1024^3 = 3,221,225,472 bytes.
    const big = harborFolder({});
    execFileSync("truncate", ["-s", "3G", path.join(big, "environment/data/huge.bin")]);
    const huge = await kgateInProcess(["--root", project.root, "import", "harbor", big]);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain(
      "environment/data/huge.bin is 3221225472 bytes, over the cap of 64 MiB a task file may have",
    );
    untouched(project.root);

    // memory_mb 64 gives the task a disk of 32 MiB (half); 40 MiB of data (under the file cap) is over it.
    const full = harborFolder({ "task.toml": "[environment]\nmemory_mb = 64\n" });
    execFileSync("truncate", ["-s", "40M", path.join(full, "environment/data/large.csv")]);
    const disk = await kgateInProcess(["--root", project.root, "import", "harbor", full]);
    expect(disk.code).toBe(2);
    expect(disk.stderr).toContain(
      `the data copied into WORKDIR is ${40 * 1024 * 1024 + 8} bytes, over the task's disk of 32 MiB (limits.diskMb`,
    );
    untouched(project.root);
  });

  it("writes a task whole or not at all: an error mid-write leaves no task and no staging folder", async () => {
    const project = tempProject();
    const task = path.join(project.tasks, "half");
    expect(() =>
      writeStaged(project, "half", [
        { file: path.join(project.verifiers, "half.ts"), bytes: "export default {};\n" },
        { file: path.join(task, "task.json"), bytes: "{}\n" },
        // A file below the previous one, a file: the write fails after two succeeded.
        { file: path.join(task, "task.json", "inner"), bytes: "x" },
      ]),
    ).toThrow(/EEXIST|ENOTDIR/);
    untouched(project.root);
  });
});
