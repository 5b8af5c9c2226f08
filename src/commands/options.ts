// Integer options of the command line: one parser for every integer flag (decimal digits only, within
// bounds), whose error names the option and the text given (a UsageError: exit 2, one line). The run
// settings (--concurrency, --retries) are parsed at the CLI edge instead (src/cli/settings.ts).
import { UsageError } from "../errors.ts";

export interface IntegerBounds {
  min?: number;
  max?: number;
}

function expected({ min, max }: IntegerBounds): string {
  if (min !== undefined && max !== undefined) return `an integer from ${min} to ${max}`;
  if (min === 0) return "a non-negative integer";
  if (min !== undefined) return `an integer >= ${min}`;
  if (max !== undefined) return `an integer <= ${max}`;
  return "an integer";
}

/** `text` as an integer within the bounds, e.g. integerOption("-n", "5", { min: 1 }). */
export function integerOption(option: string, text: string, bounds: IntegerBounds = {}): number {
  const value = Number(text);
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(`${option} must be ${expected(bounds)}, got "${text}"`);
  return value;
}
