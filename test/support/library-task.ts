// Test support for the library tasks' tests: the loaded task, its committed environment, its Python
// oracle run in a temporary copy of a condition's file set, row comparison at 1e-4, and a library
// task copied into a temporary project.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ProjectPaths, projectPaths } from "../../src/project.ts";
import { type Condition, conditionFileSet, type LoadedTask, loadValidTask } from "../../src/task/index.ts";

type Row = Record<string, unknown>;

const REPO = projectPaths(path.resolve(import.meta.dirname, "../.."));

/** Runs the task's oracle solution in `work`, a fresh copy of the condition's file set. */
function runSolutionIn(task: LoadedTask, condition: Condition, work: string): void {
  for (const file of conditionFileSet(task, condition).files) {
    mkdirSync(path.dirname(path.join(work, file.path)), { recursive: true });
    writeFileSync(path.join(work, file.path), file.read());
  }
  execFileSync("bash", ["-c", task.spec.solution.command], {
    cwd: work,
    env: { ...process.env, KGATE_SOLUTION_DIR: task.solutionDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The task's own oracle solution run on the host under +A: its first output, the right answer. */
export function oracleOutput(task: LoadedTask): string {
  const work = mkdtempSync(path.join(tmpdir(), `kgate-${task.id}-oracle-`));
  try {
    runSolutionIn(task, "+A", work);
    return readFileSync(path.join(work, task.spec.outputs[0]!.path), "utf8");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A library task in a temporary project: its task, artefact, audit and verifier (import made relative). */
export function copyLibraryTask(paths: ProjectPaths, id: string): void {
  cpSync(path.join(REPO.tasks, id), path.join(paths.tasks, id), { recursive: true });
  cpSync(path.join(REPO.artefacts, id), path.join(paths.artefacts, id), { recursive: true });
  cpSync(path.join(REPO.audits, `${id}.json`), path.join(paths.audits, `${id}.json`));
  const library = path.relative(paths.verifiers, path.join(REPO.root, "src", "verify", "index.ts"));
  const verifier = readFileSync(path.join(REPO.verifiers, `${id}.ts`), "utf8");
  mkdirSync(paths.verifiers, { recursive: true });
  writeFileSync(
    path.join(paths.verifiers, `${id}.ts`),
    verifier.replace('"kgate/verify"', JSON.stringify(library.split(path.sep).join("/"))),
  );
}

/** Call at the top level of a test file: temporary folders are removed after the file's tests. */
export function libraryTask(id: string, outputPath: string, key: string) {
  const paths = REPO;
  const task = loadValidTask(paths, id);
  const temps: string[] = [];
  afterAll(() => {
    for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  });

  function tempDir(): string {
    const dir = mkdtempSync(path.join(tmpdir(), `kgate-${id}-`));
    temps.push(dir);
    return dir;
  }

  function environmentOf(t: LoadedTask): Record<string, string> {
    return Object.fromEntries(t.environment.map((f) => [f.path, readFileSync(f.absPath, "utf8")]));
  }

  /** Runs the oracle in a fresh copy of the condition's file set and parses its CSV output by the declared types. */
  function runOracle(condition: Condition): Row[] {
    const work = tempDir();
    runSolutionIn(task, condition, work);
    const output = task.spec.outputs.find((o) => o.path === outputPath);
    if (output?.format !== "csv") throw new Error(`${outputPath} is not a declared csv output`);
    const [header, ...lines] = readFileSync(path.join(work, outputPath), "utf8").trimEnd().split("\n");
    expect(header).toBe(output.columns.map((c) => c.name).join(","));
    return lines.map((line) => {
      const cells = line.split(",");
      return Object.fromEntries(
        output.columns.map((c, i) => [c.name, c.type === "string" ? cells[i] : Number(cells[i])]),
      );
    });
  }

  /** Rows equal by key: strings exactly, numbers within 1e-4. */
  function expectSameRows(actual: Row[], expected: Row[]): void {
    expect(actual.length).toBe(expected.length);
    const byKey = new Map(actual.map((r) => [r[key], r]));
    for (const want of expected) {
      const got = byKey.get(want[key]);
      expect(got, `row ${want[key]}`).toBeDefined();
      for (const [column, value] of Object.entries(want)) {
        if (typeof value === "number")
          expect(Math.abs(Number(got?.[column]) - value)).toBeLessThanOrEqual(1e-4);
        else expect(got?.[column], `${want[key]}.${column}`).toBe(value);
      }
    }
  }

  return { paths, task, tempDir, environmentOf, runOracle, expectSameRows };
}

/**
 * The tests every Python-generated library task shares: the generator is deterministic, and the
 * oracle reproduces the solver's answer under +A and under the perturbed variant, and stops under -A.
 */
export function describeGeneratorAndOracle(
  library: ReturnType<typeof libraryTask>,
  expected: { artefact: unknown; perturbed: unknown },
): void {
  const { task, tempDir, runOracle, expectSameRows } = library;
  describe(`${task.id} generator and oracle`, () => {
    it("regenerates byte-identical environment files", () => {
      const out = tempDir();
      execFileSync("python3", [path.join(task.dir, "generate.py"), out]);
      expect(readdirSync(out).sort()).toEqual(task.environment.map((f) => f.path));
      for (const f of task.environment) {
        expect(readFileSync(path.join(out, f.path)).equals(readFileSync(f.absPath)), f.path).toBe(true);
      }
    });

    it("the Python oracle under +A writes what the reference solver expects", () => {
      expectSameRows(runOracle("+A"), expected.artefact as Row[]);
    });

    it("the Python oracle reading the perturbed variant writes the perturbed conventions' answer", () => {
      expectSameRows(runOracle("variant:perturbed"), expected.perturbed as Row[]);
    });

    it("the Python oracle refuses to run without the specification", () => {
      expect(() => runOracle("-A")).toThrow(/is not present/);
    });
  });
}
