// Runs the steps of `kgate check` over tasks in a fixed order; a step whose prerequisite is missing
// is skipped, never run on a half-loaded task.
import { isBug } from "../errors.ts";
import type { ProjectPaths } from "../project.ts";
import { auditStep } from "./audit-step.ts";
import { contractStep, deadRuleStep } from "./convention-steps.ts";
import { generatorStep } from "./generator-step.ts";
import { instructionFilesStep } from "./instruction-files-step.ts";
import { judgeCalibrationStep } from "./judge-calibration.ts";
import { leftoverStep } from "./leftover-steps.ts";
import { markerStep } from "./marker-step.ts";
import { oracleFollowsStep } from "./oracle-follows-step.ts";
import { noopStep, oracleStep } from "./sandbox-steps.ts";
import { statedNumberStep } from "./stated-number-step.ts";
import { digestStep, schemaStep } from "./static-steps.ts";
import type { CheckContext, CheckResult, CheckStep, SandboxSession } from "./types.ts";
import { oracleVariantStep } from "./variant-steps.ts";
import { defaultStep, deterministicStep, variantStep, verifierStep } from "./verifier-steps.ts";

/** The pre-flight, in the order it reads best: format, verifier, sandbox, gate, leaks. */
export const STEPS: readonly CheckStep[] = [
  schemaStep,
  digestStep,
  instructionFilesStep,
  leftoverStep,
  generatorStep,
  verifierStep,
  markerStep,
  deterministicStep,
  contractStep,
  oracleStep,
  noopStep,
  oracleVariantStep,
  oracleFollowsStep,
  defaultStep,
  variantStep,
  deadRuleStep,
  judgeCalibrationStep,
  statedNumberStep,
  auditStep,
];

export interface TaskCheck {
  id: string;
  /** No check failed (unavailable and skipped ones do not count against a task). */
  ok: boolean;
  checks: CheckResult[];
}

export interface CheckOptions {
  progress?: (line: string) => void;
  /** Runs the oracle and noop trials (see sandboxSession); without one they are `unavailable`. */
  sandbox?: SandboxSession;
  /** Steps to run (default: STEPS). */
  steps?: readonly CheckStep[];
  /** Repeats of each judgement in the judge calibration (default 3). */
  judgeRepeats?: number;
  /** Where judges' keys are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** false (--no-ping): the judge calibration asks its judges without pinging them first. */
  ping?: boolean;
}

export async function checkTask(
  paths: ProjectPaths,
  id: string,
  options: CheckOptions = {},
): Promise<TaskCheck> {
  return (await checkTaskKeepingBugs(paths, id, options)).check;
}

/**
 * checkTask, and the programming errors (kgate's own bugs) its steps threw: each such step fails in
 * the task's checks and its error is kept whole, stack included, for the command to report.
 */
export async function checkTaskKeepingBugs(
  paths: ProjectPaths,
  id: string,
  options: CheckOptions = {},
): Promise<{ check: TaskCheck; bugs: Error[] }> {
  const context: CheckContext = {
    paths,
    id,
    sandbox: options.sandbox,
    progress: options.progress ?? (() => {}),
    ...(options.judgeRepeats === undefined ? {} : { judgeRepeats: options.judgeRepeats }),
    ...(options.env ? { env: options.env } : {}),
    ...(options.ping === false ? { ping: false } : {}),
  };
  const checks: CheckResult[] = [];
  const bugs: Error[] = [];
  context.progress(`checking ${id}`);
  for (const step of options.steps ?? STEPS) {
    const started = performance.now();
    const missing = step.needs.filter((need) => context[need] === undefined);
    if (missing.length > 0) {
      const why = missing.includes("task") ? "the task does not load" : "the verifier does not load";
      checks.push({ id: step.id, status: "skipped", detail: why, durationMs: 0 });
      continue;
    }
    if (step.trials && context.verifierThrew) {
      const detail = `the verifier threw at ${context.verifierThrew}: its sandbox trials are not run (fix the verifier, then check again)`;
      checks.push({ id: step.id, status: "skipped", detail, durationMs: 0 });
      continue;
    }
    let outcomes: Awaited<ReturnType<CheckStep["run"]>>;
    try {
      outcomes = await step.run(context);
    } catch (err) {
      const bug = isBug(err) ? " (a bug in kgate: its stack follows the summary)" : "";
      if (isBug(err)) bugs.push(err);
      outcomes = [{ status: "fail", detail: `the check itself failed: ${(err as Error).message}${bug}` }];
    }
    const durationMs = Math.round(performance.now() - started);
    for (const outcome of outcomes) checks.push({ ...outcome, id: outcome.id ?? step.id, durationMs });
  }
  return { check: { id, ok: checks.every((c) => c.status !== "fail"), checks }, bugs };
}

export interface CheckSummary {
  tasks: number;
  passed: number;
  /** Checks that passed with something named to look at (they do not fail the task). */
  warnings: number;
  failed: number;
  unavailable: number;
  skipped: number;
}

export function summarise(results: readonly TaskCheck[]): CheckSummary {
  const all = results.flatMap((r) => r.checks);
  const count = (status: CheckResult["status"]) => all.filter((c) => c.status === status).length;
  return {
    tasks: results.length,
    passed: count("pass"),
    warnings: count("warning"),
    failed: count("fail"),
    unavailable: count("unavailable"),
    skipped: count("skipped"),
  };
}
