// kgate export rows keeps kgate's own bug (a TypeError) as what it is, with its type and stack, and
// turns only a bad option value into a usage error (issue 41 item 4: internal errors keep their stack
// everywhere). `usage` wraps each of the command's option readers.
import { describe, expect, it } from "vitest";
import { usage } from "../src/commands/export-rows.ts";
import { UsageError } from "../src/errors.ts";

/** A real TypeError with a stack from this file, as a programming error would give. */
function bug(): TypeError {
  try {
    (undefined as unknown as { cells: unknown[] }).cells.length;
  } catch (err) {
    return err as TypeError;
  }
  throw new Error("unreachable");
}

describe("export rows' option readers", () => {
  it("rethrow a bug with its type and stack", () => {
    const thrown = bug();
    const err = (() => {
      try {
        usage(() => {
          throw thrown;
        });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBe(thrown);
    expect(err).not.toBeInstanceOf(UsageError);
    expect((err as Error).stack).toMatch(/export-rows-internal-error\.test\.ts/);
  });

  it("turn a bad value into a usage error with its message", () => {
    const read = () =>
      usage(() => {
        throw new Error("--split 0.8,0.3: the parts must sum to 1");
      });
    expect(read).toThrow(UsageError);
    expect(read).toThrow("--split 0.8,0.3: the parts must sum to 1");
  });
});
