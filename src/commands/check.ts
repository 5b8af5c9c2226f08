// `kgate check [task...]`: the curator's pre-flight, one line per check, a summary, exit 1 on a failure.
import pc from "picocolors";
import { type CheckResult, checkTask, summarise, type TaskCheck } from "../check/index.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import { listTaskIds } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

const MARK: Record<CheckResult["status"], string> = {
  pass: pc.green("✓"),
  fail: pc.red("✗"),
  unavailable: pc.yellow("-"),
  skipped: pc.dim("·"),
};

function printTask(ctx: CommandContext, result: TaskCheck): void {
  ctx.stdout.write(`${result.ok ? pc.green(result.id) : pc.red(result.id)}\n`);
  const width = Math.max(...result.checks.map((c) => c.id.length));
  for (const check of result.checks) {
    const detail = check.status === "fail" ? check.detail : pc.dim(check.detail);
    ctx.stdout.write(`  ${MARK[check.status]} ${check.id.padEnd(width)}  ${detail}\n`);
  }
}

export async function run(
  ctx: CommandContext,
  tasks: string[],
  options: { json?: boolean },
): Promise<number> {
  const known = listTaskIds(ctx.paths);
  const unknown = tasks.filter((t) => !known.includes(t));
  if (unknown.length > 0) {
    throw new UsageError(
      `no task ${unknown.map((t) => `"${t}"`).join(", ")} in ${ctx.paths.tasks} (known: ${known.join(", ") || "none"})`,
    );
  }
  const ids = tasks.length > 0 ? [...new Set(tasks)] : known;
  const results: TaskCheck[] = [];
  for (const id of ids) {
    const result = await checkTask(ctx.paths, id, {
      progress: (line) => ctx.stderr.write(`${pc.dim(line)}\n`),
    });
    results.push(result);
    if (!options.json) printTask(ctx, result);
  }
  const summary = summarise(results);
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ root: ctx.paths.root, tasks: results, summary }, null, 2)}\n`);
  } else if (ids.length === 0) {
    ctx.stdout.write(`no tasks in ${ctx.paths.tasks} (create one with: kgate new <id>)\n`);
  } else {
    const failed = summary.failed > 0 ? pc.red(`${summary.failed} failed`) : `${summary.failed} failed`;
    ctx.stdout.write(
      `${summary.tasks} task(s): ${summary.passed} passed, ${failed}, ${summary.unavailable} not available, ${summary.skipped} skipped\n`,
    );
  }
  return summary.failed > 0 ? EXIT_FAILED : EXIT_OK;
}
