// `kgate check [task...]`: the curator's pre-flight, one line per check, a summary, exit 1 on a failure.

import { type CheckReport, type CheckResult, check, type TaskCheck } from "../api/index.ts";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, InternalTrialErrors } from "../errors.ts";
import { InterruptedError, removeOnInterrupt } from "../sandbox/index.ts";
import { newRunId } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";
import { integerOption } from "./options.ts";
import { selectTaskIds } from "./task-ids.ts";

export interface CheckCommandOptions {
  json?: boolean;
  /** false with --no-sandbox: the oracle and noop trials are not run. */
  sandbox?: boolean;
  /** --concurrency: tasks checked side by side (parsed at the CLI edge, src/cli/settings.ts). */
  concurrency: number;
  /** --judge-repeats: repeats of each judgement in the judge calibration (default 3). */
  judgeRepeats?: string;
  /** false with --no-ping: judges are asked without pinging their endpoints first. */
  ping?: boolean;
}

const MARK: Record<CheckResult["status"], string> = {
  pass: pc.green("✓"),
  warning: pc.yellow("!"),
  fail: pc.red("✗"),
  unavailable: pc.yellow("-"),
  skipped: pc.dim("·"),
};

function printTask(ctx: CommandContext, result: TaskCheck): void {
  ctx.stdout.write(`${result.ok ? pc.green(result.id) : pc.red(result.id)}\n`);
  const width = Math.max(...result.checks.map((c) => c.id.length));
  for (const check of result.checks) {
    const detail =
      check.status === "fail"
        ? check.detail
        : check.status === "warning"
          ? pc.yellow(check.detail)
          : pc.dim(check.detail);
    ctx.stdout.write(`  ${MARK[check.status]} ${check.id.padEnd(width)}  ${detail}\n`);
  }
}

export async function run(
  ctx: CommandContext,
  tasks: string[],
  options: CheckCommandOptions,
): Promise<number> {
  const ids = selectTaskIds(ctx.paths, tasks);
  const { concurrency } = options;
  const log = (line: string) => ctx.stderr.write(`${pc.dim(line)}\n`);
  const judgeRepeats =
    options.judgeRepeats === undefined
      ? undefined
      : integerOption("--judge-repeats", options.judgeRepeats, { min: 1, max: 20 });

  const controller = new AbortController();
  const sandbox = options.sandbox !== false && ids.length > 0;
  const runId = sandbox ? newRunId("check") : undefined;
  const dispose = runId ? removeOnInterrupt(ctx.paths, runId, controller, log) : () => {};
  let report: CheckReport;
  try {
    report = await check(
      { paths: ctx.paths },
      {
        tasks: ids,
        sandbox,
        concurrency,
        ...(runId ? { runId } : {}),
        ...(judgeRepeats === undefined ? {} : { judgeRepeats }),
        ...(options.ping === false ? { ping: false } : {}),
        signal: controller.signal,
        onProgress: log,
        onTask: (result) => {
          if (!options.json) printTask(ctx, result);
        },
      },
    );
  } finally {
    dispose();
  }
  const { tasks: results, summary } = report;
  if (options.json) {
    ctx.stdout.write(
      `${JSON.stringify({ root: ctx.paths.root, runId: report.runId, tasks: results, summary }, null, 2)}\n`,
    );
  } else if (ids.length === 0) {
    ctx.stdout.write(`no tasks in ${ctx.paths.tasks} (create one with: kgate new <id>)\n`);
  } else {
    const failed = summary.failed > 0 ? pc.red(`${summary.failed} failed`) : `${summary.failed} failed`;
    const named = results.flatMap((r) =>
      r.checks.filter((c) => c.status === "warning").map((c) => `${r.id} ${c.id}`),
    );
    const warnings =
      summary.warnings > 0
        ? pc.yellow(`${summary.warnings} warning(s) (${named.join(", ")})`)
        : "0 warning(s)";
    ctx.stdout.write(
      `${summary.tasks} task(s): ${summary.passed} passed, ${warnings}, ${failed}, ${summary.unavailable} not available, ${summary.skipped} skipped\n`,
    );
  }
  if (report.internalErrors.length > 0) throw new InternalTrialErrors(report.internalErrors);
  const reason = controller.signal.reason;
  if (reason instanceof InterruptedError) return reason.exitCode;
  return summary.failed > 0 ? EXIT_FAILED : EXIT_OK;
}
