// Test support: runs a task's oracle solution on the host (python3), in a temporary work directory
// filled with a condition's file set exactly as the sandbox would be, and collects its outputs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Condition, conditionFileSet, type LoadedTask } from "../../src/task/index.ts";
import type { OutputForVerification } from "../../src/verify/index.ts";

export interface HostOracleRun {
  code: number | null;
  stderr: string;
  outputs: OutputForVerification[];
}

export function runOracleOnHost(task: LoadedTask, condition: Condition): HostOracleRun {
  const work = mkdtempSync(path.join(tmpdir(), "kgate-oracle-"));
  try {
    for (const file of conditionFileSet(task, condition).files) {
      const target = path.join(work, file.path);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.read());
    }
    const run = spawnSync("bash", ["-c", task.spec.solution.command], {
      cwd: work,
      env: { ...process.env, KGATE_SOLUTION_DIR: task.solutionDir },
      encoding: "utf8",
    });
    const outputs = task.spec.outputs.map((o): OutputForVerification => {
      const file = path.join(work, o.path);
      return existsSync(file)
        ? { path: o.path, status: "collected", bytes: readFileSync(file) }
        : { path: o.path, status: "missing" };
    });
    return { code: run.status, stderr: run.stderr, outputs };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
