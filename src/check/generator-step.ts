// The data-generator check: a task's environment/ is reproducible. The generator lives beside it as
// tasks/<id>/generate.py (run with python3), generate.ts (node with tsx) or generate.mjs (node), takes the folder
// to write into as its one argument, and must write every environment file byte for byte.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { relativeToProject } from "../project.ts";
import { listFiles } from "../task/index.ts";
import type { CheckStep } from "./types.ts";

const run = promisify(execFile);
const TIMEOUT_MS = 120_000;
const OUTPUT_LIMIT = 1024 * 1024;
const STDERR_TAIL = 400;

/** The generator of a task folder and the command that runs it, or undefined. */
function generatorOf(taskDir: string): { file: string; command: string; args: string[] } | undefined {
  const python = path.join(taskDir, "generate.py");
  if (existsSync(python)) return { file: python, command: "python3", args: [python] };
  const typescript = path.join(taskDir, "generate.ts");
  if (existsSync(typescript)) {
    const tsx = import.meta.resolve("tsx/esm");
    return { file: typescript, command: process.execPath, args: ["--import", tsx, typescript] };
  }
  const module = path.join(taskDir, "generate.mjs");
  if (existsSync(module)) return { file: module, command: process.execPath, args: [module] };
  return undefined;
}

/** Differences between the generated folder and environment/, by file. */
function differences(generated: string, environment: string): string[] {
  const made = listFiles(generated);
  const kept = listFiles(environment);
  const out: string[] = [];
  for (const file of kept) {
    if (!made.includes(file)) out.push(`${file} is not generated`);
    else if (!readFileSync(path.join(generated, file)).equals(readFileSync(path.join(environment, file))))
      out.push(`${file} differs`);
  }
  for (const file of made) if (!kept.includes(file)) out.push(`${file} is generated but not in environment/`);
  return out;
}

export const generatorStep: CheckStep = {
  id: "generator",
  needs: ["task"],
  async run(context) {
    const task = context.task!;
    const generator = generatorOf(task.dir);
    if (!generator) {
      return [
        {
          status: "unavailable",
          detail: `no data generator (tasks/${task.id}/generate.py, generate.ts or generate.mjs, run with the output folder as argument)`,
        },
      ];
    }
    const where = relativeToProject(context.paths, generator.file);
    const out = mkdtempSync(path.join(tmpdir(), "kgate-generate-"));
    try {
      context.progress(`${task.id}: rerunning ${where}`);
      try {
        await run(generator.command, [...generator.args, out], {
          cwd: task.dir,
          timeout: TIMEOUT_MS,
          maxBuffer: OUTPUT_LIMIT,
        });
      } catch (err) {
        const failure = err as Error & { stderr?: string; killed?: boolean };
        const why = failure.killed
          ? `did not finish within ${TIMEOUT_MS / 1000} s`
          : (failure.stderr ?? "").trim().slice(-STDERR_TAIL) || failure.message;
        return [{ status: "fail", detail: `${where} failed: ${why}` }];
      }
      const diff = differences(out, path.join(task.dir, "environment"));
      if (diff.length > 0) {
        return [
          {
            status: "fail",
            detail: `${where} does not reproduce environment/: ${diff.slice(0, 5).join("; ")}${diff.length > 5 ? `; and ${diff.length - 5} more` : ""}`,
          },
        ];
      }
      return [
        {
          status: "pass",
          detail: `${where} reproduces environment/ byte for byte (${task.environment.length} file(s))`,
        },
      ];
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
};
