// The one integer-option parser of the commands: digits only, bounds checked, and a one-line usage
// error (exit 2) naming the option and the text given; the run settings (--concurrency, --retries)
// parsed once by their one validator within their bounds.
import { describe, expect, it } from "vitest";
import { integerOption } from "../src/commands/options.ts";
import { parseRunSetting } from "../src/common/index.ts";
import { EXIT_USAGE, UsageError } from "../src/errors.ts";

const message = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).code).toBe(EXIT_USAGE);
    return (err as Error).message;
  }
  throw new Error("no error");
};

describe("integerOption", () => {
  it("parses decimal integers within the bounds", () => {
    expect(integerOption("-n", "5", { min: 1 })).toBe(5);
    expect(integerOption("--seed", "0", { min: 0 })).toBe(0);
    expect(integerOption("--port", "65535", { min: 0, max: 65535 })).toBe(65535);
  });

  it("refuses anything else in one line naming the option", () => {
    expect(message(() => integerOption("-n", "0", { min: 1 }))).toBe('-n must be an integer >= 1, got "0"');
    expect(message(() => integerOption("--budget", "-1", { min: 0 }))).toBe(
      '--budget must be a non-negative integer, got "-1"',
    );
    expect(message(() => integerOption("--port", "70000", { min: 0, max: 65535 }))).toBe(
      '--port must be an integer from 0 to 65535, got "70000"',
    );
    // Number() would take all of these: an exponent, a fraction written as an integer, hex, blanks, nothing
    for (const text of ["1e3", "1.0", "0x10", " 5", ""])
      expect(message(() => integerOption("-n", text, { min: 1 }))).toBe(
        `-n must be an integer >= 1, got "${text}"`,
      );
    expect(message(() => integerOption("-n", "99999999999999999999"))).toMatch(/^-n must be an integer, got/);
  });
});

describe("parseRunSetting", () => {
  it("takes --concurrency from 1 to 256 and --retries from 0 to 10, digits only", () => {
    expect(parseRunSetting("concurrency", "256")).toEqual({ value: 256 });
    expect(parseRunSetting("retries", "0")).toEqual({ value: 0 });
    expect(parseRunSetting("concurrency", "257")).toEqual({
      problem: '--concurrency must be an integer from 1 to 256, got "257"',
    });
    expect(parseRunSetting("retries", "11")).toEqual({
      problem: '--retries must be an integer from 0 to 10, got "11"',
    });
    for (const text of ["0", "1e3", "1.0", " 5", "", "-1"])
      expect(parseRunSetting("concurrency", text)).toEqual({
        problem: `--concurrency must be an integer from 1 to 256, got "${text}"`,
      });
  });
});
