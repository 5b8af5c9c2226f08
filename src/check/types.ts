// The shape of `kgate check`: named steps over one task, each ending in a result with a status.
import type { ProjectPaths } from "../project.ts";
import type { LoadedTask } from "../task/index.ts";
import type { LoadedVerifier } from "../verify/index.ts";
import type { SandboxSession } from "./sandbox-steps.ts";

/**
 * `pass` / `fail`: the check ran; `unavailable`: the machinery it needs has not landed or is off;
 * `skipped`: a prerequisite failed (e.g. the task does not load), so it could not run.
 */
export type CheckStatus = "pass" | "fail" | "unavailable" | "skipped";

export interface CheckResult {
  /** Stable id: `schema`, `digests`, `verifier`, `deterministic`, `oracle`, `noop`, `default`, `variant:<name>`, `leak-audit`. */
  id: string;
  status: CheckStatus;
  /** One line saying what was found. */
  detail: string;
  durationMs: number;
}

/** What steps share while checking one task; later steps read what earlier ones established. */
export interface CheckContext {
  paths: ProjectPaths;
  id: string;
  task?: LoadedTask;
  verifier?: LoadedVerifier;
  /** Where the sandbox steps run their trials; undefined with --no-sandbox. */
  sandbox?: SandboxSession;
  /** Progress lines (stderr in the CLI). */
  progress(line: string): void;
}

export type StepOutcome = Omit<CheckResult, "id" | "durationMs"> & { id?: string };

/** One step: may yield several results (e.g. one per variant). */
export interface CheckStep {
  id: string;
  /** Prerequisites: the step is skipped when the context lacks them. */
  needs: Array<"task" | "verifier">;
  run(context: CheckContext): Promise<StepOutcome[]>;
}
