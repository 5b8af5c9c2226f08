// Why a verb's trials could not start, as the user's error to fix (exit 2, one line): a bad sandbox
// setting, an unreachable sandbox provider (with the doctor's hint), a missing API key. Anything
// else is returned as it is, so kgate's own bugs keep their stack.
import { UsageError } from "../errors.ts";
import { SandboxConfigError, SandboxUnavailableError } from "../sandbox/index.ts";

export function startupError(err: unknown): unknown {
  if (err instanceof SandboxConfigError) return new UsageError(err.message);
  if (err instanceof SandboxUnavailableError)
    return new UsageError(`${err.message}\n(run \`kgate sandbox doctor\` to see what is missing)`);
  if (err instanceof Error && err.name === "MissingKeyError") return new UsageError(err.message);
  return err;
}
