// N trials of one cell through a bounded pool: the agent is prepared once, the image resolved once,
// and a trial whose attempt hit a transient infrastructure error is retried with a new attempt.
import { ensureSandboxImage } from "../sandbox/index.ts";
import { conditionFileSet } from "../task/index.ts";
import { runPool } from "./pool.ts";
import type { TrialRecord } from "./record.ts";
import { runTrial, type TrialOptions } from "./run-trial.ts";

/** Infra error kinds worth another attempt (the daemon or the provider may recover). */
export const RETRYABLE_KINDS = new Set([
  "sandbox",
  "sandbox-unavailable",
  "sandbox-timeout",
  "harness",
  "provider",
  // model providers and installed harnesses (src/agents/errors.ts): transient ones only
  "rate-limit",
  "provider-outage",
  "provider-unreachable",
  "harness-exit",
  "relay",
]);

export interface RunTrialsOptions extends Omit<TrialOptions, "index" | "attempt" | "requirements"> {
  n: number;
  /** Trials in flight at once (default 1). */
  concurrency?: number;
  /** Extra attempts for a trial that ended in a retryable infra error (default 1). */
  retries?: number;
  /** Index of the first trial (default 0), e.g. to add trials to a cell. */
  firstIndex?: number;
  /** Called with every record as it is written, retried attempts included. */
  onRecord?: (record: TrialRecord) => void;
}

export function isRetryable(record: TrialRecord): boolean {
  return record.error?.class === "infra" && RETRYABLE_KINDS.has(record.error.kind);
}

/**
 * Runs n trials and returns the last attempt of each, in index order (trials never started because
 * the run was cancelled are left out). Throws only before the first trial (unknown variant, image
 * build failure, agent preparation failure).
 */
export async function runTrials(options: RunTrialsOptions): Promise<TrialRecord[]> {
  conditionFileSet(options.task, options.condition);
  const image = options.image ?? (await ensureSandboxImage(options.paths));
  const requirements = (await options.agent.prepare?.()) ?? {};
  const retries = options.retries ?? 1;
  const first = options.firstIndex ?? 0;
  const indices = Array.from({ length: options.n }, (_, i) => first + i);
  try {
    const records = await runPool(indices, options.concurrency ?? 1, async (index) => {
      // Once the run is cancelled, trials that have not started are not started (and not recorded).
      if (options.signal?.aborted) return null;
      let record: TrialRecord;
      let attempt = 1;
      for (;;) {
        record = await runTrial({ ...options, image, requirements, index, attempt });
        options.onRecord?.(record);
        if (!isRetryable(record) || attempt > retries || options.signal?.aborted) return record;
        attempt++;
      }
    });
    return records.filter((r) => r !== null);
  } finally {
    await options.agent.dispose?.();
  }
}
