// The shape of `kgate check`: named steps over one task, each ending in a result with a status.

import type { ProjectPaths } from "../project.ts";
import type { Condition, TrialRecord } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import type { LoadedVerifier } from "../verify/index.ts";

/**
 * `pass` / `fail`: the check ran; `warning`: it ran and found something the curator should look at
 * (named in its detail), which does not fail the task; `unavailable`: the machinery it needs has not
 * landed or is off; `skipped`: a prerequisite failed (e.g. the task does not load), so it could not run.
 */
export type CheckStatus = "pass" | "warning" | "fail" | "unavailable" | "skipped";

export interface CheckResult {
  /** Stable id: `schema`, `digests`, `verifier`, `deterministic`, `oracle`, `noop`, `default`, `variant:<name>`, `leak-audit`. */
  id: string;
  status: CheckStatus;
  /** One line saying what was found. */
  detail: string;
  durationMs: number;
}

/** The agents the sandbox steps run: the oracle under +A, the noop agent under -A. */
export type SandboxCheckAgent = "oracle" | "noop";

/**
 * What the sandbox steps of one `kgate check` share: a run for their records, and one engine
 * (sandbox-steps.ts opens it).
 */
export interface SandboxSession {
  paths: ProjectPaths;
  runId: string;
  runDir: string;
  /** One trial through the engine (opened on first use), or why it could not run. */
  trial(context: CheckContext, condition: Condition, agent: SandboxCheckAgent): Promise<TrialRecord | string>;
  /** kgate's own errors met so far (`internal` records). */
  internal(): TrialRecord[];
  close(): Promise<void>;
}

/** What steps share while checking one task; later steps read what earlier ones established. */
export interface CheckContext {
  paths: ProjectPaths;
  id: string;
  task?: LoadedTask;
  verifier?: LoadedVerifier;
  /** Where the verifier threw when run (`verifiers/<id>.ts:<line>`, or its file): trials would only waste time. */
  verifierThrew?: string;
  /** Where the sandbox steps run their trials; undefined with --no-sandbox. */
  sandbox?: SandboxSession;
  /** Repeats of each judgement in the judge calibration (default 3). */
  judgeRepeats?: number;
  /** Where judges' keys are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** false (--no-ping): judges are asked without pinging their endpoints first. */
  ping?: boolean;
  /** Progress lines (stderr in the CLI). */
  progress(line: string): void;
}

export type StepOutcome = Omit<CheckResult, "id" | "durationMs"> & { id?: string };

/** One step: may yield several results (e.g. one per variant). */
export interface CheckStep {
  id: string;
  /** Prerequisites: the step is skipped when the context lacks them. */
  needs: Array<"task" | "verifier">;
  /** Runs trials in the sandbox (each verified by the verifier): skipped once the verifier threw. */
  trials?: boolean;
  run(context: CheckContext): Promise<StepOutcome[]>;
}
