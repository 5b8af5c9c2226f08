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
