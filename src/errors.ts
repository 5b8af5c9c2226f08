// Errors that carry a process exit code: only the CLI entry point turns them into an exit.
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export class ExitError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "ExitError";
  }
}

/** Bad arguments or configuration, or a tool failure: exit code 2. */
export class UsageError extends ExitError {
  constructor(message: string) {
    super(EXIT_USAGE, message);
    this.name = "UsageError";
  }
}

/** Where a report of kgate's own bugs goes. */
export const REPORT_BUGS =
  "this is a bug in kgate: please report it with the lines above (and the run folder)";

/** Records of trials that met kgate's own bugs (`internal` errors): the command fails after its output. */
export class InternalTrialErrors extends ExitError {
  constructor(
    records: ReadonlyArray<{ trialId: string; error: { message: string; stack?: string } | null }>,
  ) {
    const lines = records.map(
      (r) => `  ${r.trialId}: ${r.error?.stack ?? r.error?.message ?? "(no message)"}`,
    );
    super(
      EXIT_USAGE,
      `${records.length} trial(s) met an internal error (recorded, left out of pass rates, not retried):\n${lines.join("\n")}\n${REPORT_BUGS}`,
    );
    this.name = "InternalTrialErrors";
  }
}

/** A programming error (TypeError, ReferenceError, RangeError, EvalError): kgate's own bug, never the user's. */
export function isBug(err: unknown): err is Error {
  return (
    err instanceof TypeError ||
    err instanceof ReferenceError ||
    err instanceof RangeError ||
    err instanceof EvalError
  );
}

/**
 * A thrown error as the user's to fix (a UsageError: exit 2, one line), unless it is a programming
 * error (TypeError, ReferenceError, RangeError, EvalError): that is kgate's own bug, rethrown as is so
 * the CLI's exit point prints its stack and asks for a report.
 */
export function usageOrBug(err: unknown): Error {
  if (isBug(err) || err instanceof ExitError) return err;
  return new UsageError(err instanceof Error ? err.message : String(err));
}
