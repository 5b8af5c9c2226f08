// `kgate export harbor`: every library task under +A, -A and each variant follows Harbor's task
// contract (static checks); the first five round-trip through real Docker as Harbor runs them: reward
// 1 for the oracle under +A, 0 under -A, 0 for the default-convention answer; the canary never in -A.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { type LoadedTask, listFiles, listTaskIds, loadValidTask } from "../src/task/index.ts";
import { loadVerifier, renderAnswers, solveRaw } from "../src/verify/index.ts";
import { kgate } from "./support/cli.ts";
import {
  buildEnvironment,
  documentedVariablesOracle,
  exec,
  grepFileSystem,
  runOracle,
  runVerifier,
  startEnvironment,
} from "./support/harbor-run.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const ids = listTaskIds(repo);
const tasks = ids.map((id) => loadValidTask(repo, id));
/** The real-Docker round trip covers the library's first five tasks; test/library-new-tasks.docker.test.ts runs those added since. */
const ROUND_TRIP = ["bom-costing", "contract-clause", "mortgage-escrow", "paper-index", "payroll-overtime"];
const out = tempProject("file").root;
const exported = kgate(["--root", repo.root, "export", "harbor", "--out", out, "--json"], {
  timeoutMs: 300_000,
});

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

/** Harbor's own reading of task.toml: Python's tomllib (Harbor's TaskConfig.model_validate_toml). */
function tomllib(file: string): Record<string, Record<string, unknown>> {
  const script = "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))";
  return JSON.parse(execFileSync("python3", ["-c", script, file], { encoding: "utf8" }));
}

function folderOf(task: LoadedTask, suffix: string): string {
  return path.join(out, `${task.id}-${suffix}`);
}

/** Every condition a task declares, by the folder suffix kgate names it with. */
function conditions(task: LoadedTask): Array<{ condition: string; suffix: string; artefact: Buffer | null }> {
  return [
    { condition: "+A", suffix: "plus-a", artefact: task.artefact.bytes },
    { condition: "-A", suffix: "minus-a", artefact: null },
    ...task.variants.map((v) => ({
      condition: `variant:${v.name}`,
      suffix: `variant-${v.name}`,
      artefact: v.bytes,
    })),
  ];
}

/** Every file below `dir` as bytes, for the canary and artefact-byte searches. */
function treeBytes(dir: string): Array<{ file: string; bytes: Buffer }> {
  return listFiles(dir).map((file) => ({ file, bytes: readFileSync(path.join(dir, file)) }));
}

describe("kgate export harbor (every library task)", () => {
  it("exits 0 and writes one folder per task and condition", () => {
    expect(exported.stderr).not.toMatch(/error/i);
    expect(exported.code).toBe(0);
    // One folder per task and condition: +A, -A and one per declared variant (the library's tasks
    // declare perturbed and compressed: 2 + 2 each).
    expect(ids).toEqual(expect.arrayContaining(ROUND_TRIP));
    // Beside the folders, the manifest (manifest.jsonl and manifest.parquet).
    const folders = readdirSync(out).filter((f) => !f.startsWith("manifest."));
    expect(readdirSync(out).length - folders.length).toBe(2);
    expect(folders).toHaveLength(tasks.reduce((n, t) => n + 2 + t.variants.length, 0));
    const report = JSON.parse(exported.stdout) as {
      tasks: Array<{ task: string; ok: boolean; folders: unknown[] }>;
    };
    expect(report.tasks.map((t) => [t.task, t.ok, t.folders.length])).toEqual(
      tasks.map((t) => [t.id, true, 2 + t.variants.length]),
    );
  });

  describe.each(tasks.map((task) => [task.id, task] as const))("%s", (_id, task) => {
    it.each(conditions(task))(
      "$condition: Harbor's layout, instruction byte-identical, task.toml as Harbor reads it",
      (c) => {
        const dir = folderOf(task, c.suffix);
        // Harbor's TaskPaths.is_valid: task.toml, environment/, instruction.md and tests/test.sh.
        for (const required of [
          "task.toml",
          "environment/Dockerfile",
          "instruction.md",
          "tests/test.sh",
          "solution/solve.sh",
        ]) {
          expect(existsSync(path.join(dir, required)), required).toBe(true);
        }
        expect(statSync(path.join(dir, "tests/test.sh")).mode & 0o111).not.toBe(0);
        expect(statSync(path.join(dir, "solution/solve.sh")).mode & 0o111).not.toBe(0);
        expect(readFileSync(path.join(dir, "instruction.md")).equals(task.instruction)).toBe(true);

        const toml = tomllib(path.join(dir, "task.toml"));
        expect(toml.schema_version).toBe("1.1");
        expect(toml.task?.name).toMatch(/^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*$/);
        expect(toml.agent).toEqual({ timeout_sec: task.spec.limits.timeoutSec });
        expect(toml.verifier?.timeout_sec).toBeGreaterThan(0);
        expect(toml.environment).toMatchObject({
          cpus: task.spec.limits.cpus,
          memory_mb: task.spec.limits.memoryMb,
          allow_internet: false,
          network_mode: "no-network",
        });
        expect(toml.metadata).toMatchObject({
          kgate_task: task.id,
          kgate_condition: c.condition,
          instruction_sha256: sha256(readFileSync(path.join(task.dir, "instruction.md"))),
          artefact_sha256: c.artefact ? sha256(c.artefact) : "none",
        });
        expect(toml.metadata?.kgate_version).toBe(
          JSON.parse(readFileSync(path.join(repo.root, "package.json"), "utf8")).version,
        );
      },
    );

    it.each(conditions(task))(
      "$condition: the agent's image context is the condition's file set and nothing else",
      (c) => {
        const dir = folderOf(task, c.suffix);
        const expected = [
          "Dockerfile",
          ...task.environment.map((f) => `workdir/${f.path}`),
          ...(c.artefact ? [`workdir/${task.spec.artefact.path}`] : []),
        ].sort();
        expect(listFiles(path.join(dir, "environment")).sort()).toEqual(expected);
        for (const f of task.environment) {
          expect(
            readFileSync(path.join(dir, "environment/workdir", f.path)).equals(readFileSync(f.absPath)),
          ).toBe(true);
        }
        if (c.artefact) {
          expect(
            readFileSync(path.join(dir, "environment/workdir", task.spec.artefact.path)).equals(c.artefact),
          ).toBe(true);
        }
      },
    );

    it("-A: no byte of the artefact or a variant anywhere in the exported folder", () => {
      const canary = task.artefact.canary;
      expect(canary, "every library artefact carries a canary").toBeTruthy();
      const placed = [task.artefact.bytes, ...task.variants.map((v) => v.bytes)];
      // Runs of 48 bytes from every artefact line of that length: none may appear in the -A folder.
      const runs = placed.flatMap((bytes) =>
        bytes
          .toString("utf8")
          .split("\n")
          .filter((line) => line.length >= 48)
          .map((line) => line.slice(0, 48)),
      );
      expect(runs.length).toBeGreaterThan(10);
      for (const { file, bytes } of treeBytes(folderOf(task, "minus-a"))) {
        expect(bytes.includes(canary!), file).toBe(false);
        for (const run of runs) expect(bytes.includes(run), `${file} holds "${run}"`).toBe(false);
      }
      // The same search finds the canary in the +A folder: it can fail.
      expect(treeBytes(folderOf(task, "plus-a")).some(({ bytes }) => bytes.includes(canary!))).toBe(true);
    });
  });
});

describe("the exported folders run as Harbor runs them (real Docker)", () => {
  it.each(tasks.filter((task) => ROUND_TRIP.includes(task.id)).map((task) => [task.id, task] as const))(
    "%s: reward 1 for the oracle under +A, 0 under -A and for the default-convention answer",
    async (_id, task) => {
      const base = sandboxImage();
      const plus = folderOf(task, "plus-a");
      const minus = folderOf(task, "minus-a");
      const plusImage = buildEnvironment(plus, base);
      const minusImage = buildEnvironment(minus, base);
      const canary = task.artefact.canary!;

      // Before the agent phase: no solution, no tests; the -A image has no canary, the +A image has it.
      const minusOracle = startEnvironment(minusImage);
      expect(exec(minusOracle, "test ! -e /tests && test ! -e /solution").code).toBe(0);
      expect(grepFileSystem(minusOracle, canary)).toEqual([]);
      const plusOracle = startEnvironment(plusImage);
      expect(grepFileSystem(plusOracle, canary)).toEqual([`/home/agent/work/${task.spec.artefact.path}`]);

      expect(runOracle(plusOracle, plus).code).toBe(0);
      const pass = runVerifier(plusOracle, plus);
      expect(pass.stdout).toContain(`kgate verdict for ${task.id} (+A): pass`);
      expect([pass.reward, pass.rewardJson]).toEqual(["1", '{"reward":1}']);

      // Under -A the oracle stops (the specification is not present) and nothing passes.
      expect(runOracle(minusOracle, minus).code).not.toBe(0);
      const fail = runVerifier(minusOracle, minus);
      expect(fail.stdout).toContain(`kgate verdict for ${task.id} (-A): fail`);
      expect(fail.reward).toBe("0");

      // An agent that follows the default conventions under +A: its outputs written in the work
      // directory, plus reward files planted for the verifier to find.
      const loaded = await loadVerifier(task);
      const defaults = renderAnswers(task, loaded, solveRaw(task, loaded, "default"));
      const agent = startEnvironment(plusImage);
      for (const output of defaults) {
        const write = exec(
          agent,
          `mkdir -p "$(dirname '${output.path}')" && cat > '${output.path}'`,
          output.bytes!.toString(),
        );
        expect(write.code).toBe(0);
      }
      expect(
        exec(
          agent,
          "echo 1 > /logs/verifier/reward.txt && echo '{\"reward\": 1}' > /logs/verifier/reward.json",
        ).code,
      ).toBe(0);
      const ignorant = runVerifier(agent, plus);
      expect(ignorant.stdout).toContain(`kgate verdict for ${task.id} (+A): fail`);
      expect(ignorant.reward).toBe("0");
      // The planted reward.json was removed and the verifier's own written in its place.
      expect(ignorant.rewardJson).toBe('{"reward":0}');
      const verdict = JSON.parse(exec(agent, "cat /logs/verifier/verdict.json").stdout);
      expect(verdict.verdict.attribution).toBe("default-convention");
    },
  );

  it("bom-costing variants: the compressed artefact passes like +A, the perturbed one fails like -A, for an oracle that reads only the documented variables", () => {
    const task = tasks.find((t) => t.id === "bom-costing")!;
    const base = sandboxImage();
    for (const [variant, reward] of [
      ["compressed", "1"],
      ["perturbed", "0"],
    ] as const) {
      const folder = folderOf(task, `variant-${variant}`);
      const container = startEnvironment(buildEnvironment(folder, base));
      // The oracle finds the placed document only through $KGATE_ARTEFACT_PATH (docs/verify.md), so it
      // follows the variant; exported solve.sh must set it (it was unset: KeyError, reward 0).
      const oracle = runOracle(container, documentedVariablesOracle(folder));
      expect(oracle.code, exec(container, "cat /logs/agent/oracle.txt").stdout).toBe(0);
      expect(runVerifier(container, folder).reward).toBe(reward);
      const verdict = JSON.parse(exec(container, "cat /logs/verifier/verdict.json").stdout).verdict;
      expect(verdict.attribution).toBe(variant === "perturbed" ? "perturbed-convention:perturbed" : null);
    }
  });
});
