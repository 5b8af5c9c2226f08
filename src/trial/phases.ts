// Timed, bounded phases of a trial: each records {startedAt, finishedAt, durationMs, error} and
// fails with a typed PhaseTimeoutError when it overruns; phase errors are classified in the taxonomy.
import { internalError, PhaseName, type PhaseTiming, type TrialError, trialError } from "../record/index.ts";
import { HostDownError, SandboxApiError, SandboxUnavailableError } from "../sandbox/index.ts";

class PhaseTimeoutError extends Error {
  override name = "PhaseTimeoutError";
  constructor(
    readonly phase: PhaseName,
    readonly ms: number,
  ) {
    super(`the ${phase} phase did not finish within ${ms / 1000} s`);
  }
}

/** Runs fn, rejecting with PhaseTimeoutError after ms; `late` receives a result that arrives too late. */
export async function bounded<T>(
  phase: PhaseName,
  ms: number,
  fn: () => Promise<T>,
  late?: (value: T) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const work = fn();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new PhaseTimeoutError(phase, ms));
    }, ms);
  });
  work.then((value) => timedOut && late?.(value)).catch(() => {});
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Records the timing of each phase as it runs. */
export class PhaseClock {
  private readonly phases: Partial<Record<PhaseName, PhaseTiming>> = {};

  /** The phases that ran, in the order of PhaseName (some run side by side). */
  ordered(): Partial<Record<PhaseName, PhaseTiming>> {
    return Object.fromEntries(
      PhaseName.options.flatMap((name) => (this.phases[name] ? [[name, this.phases[name]]] : [])),
    );
  }

  /** Runs a phase, timing it; an error it throws is recorded of the taxonomy (phaseError) and rethrown. */
  async run<T>(phase: PhaseName, fn: () => Promise<T>): Promise<T> {
    const started = new Date();
    const t0 = performance.now();
    let error: TrialError | undefined;
    try {
      return await fn();
    } catch (err) {
      error = phaseError(phase, err);
      throw err;
    } finally {
      this.phases[phase] = {
        startedAt: started.toISOString(),
        finishedAt: new Date().toISOString(),
        durationMs: Math.round((performance.now() - t0) * 10) / 10,
        ...(error === undefined ? {} : { error }),
      };
    }
  }
}

/** Runs a phase on the clock within its bound (PhaseTimeoutError after ms; `late` gets a result that came too late). */
export function timedPhase<T>(
  clock: PhaseClock,
  phase: PhaseName,
  ms: number,
  fn: () => Promise<T>,
  late?: (value: T) => void,
): Promise<T> {
  return clock.run(phase, () => bounded(phase, ms, fn, late));
}

/** An error thrown in a phase, of the taxonomy: the sandbox phases' by sandboxPhaseError, any other is kgate's bug. */
export function phaseError(phase: PhaseName, err: unknown): TrialError {
  if (phase === "agent" || phase === "verify") {
    if (err instanceof PhaseTimeoutError) return trialError("sandbox-timeout", err.message);
    return internalError(err);
  }
  return sandboxPhaseError(phase, err);
}

/**
 * Classifies an error raised by a sandbox phase (create, copy in/out, stop): the provider's failure
 * is infrastructure; anything else thrown there is kgate's own bug.
 */
export function sandboxPhaseError(phase: PhaseName, err: unknown): TrialError {
  if (err instanceof PhaseTimeoutError) return trialError("sandbox-timeout", err.message);
  if (err instanceof HostDownError) return trialError("host-down", `${phase}: ${err.message}`);
  if (err instanceof SandboxUnavailableError)
    return trialError("sandbox-unavailable", `${phase}: ${err.message}`);
  if (err instanceof SandboxApiError) return trialError("sandbox", `${phase}: ${err.message}`);
  const e = err instanceof Error ? err : new Error(String(err));
  return trialError("internal", `${phase}: ${e.message}`, e.stack);
}

/** A cancelled run's error: never a timeout, never the agent's failure. */
export function cancelledError(signal: AbortSignal | undefined): TrialError {
  const reason = signal?.reason;
  return trialError("cancelled", reason instanceof Error ? reason.message : "the run was cancelled");
}
