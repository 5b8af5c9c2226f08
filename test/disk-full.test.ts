// Which agent-phase errors a full disk turns into disk-full (the agent's), and which it leaves alone.
import { describe, expect, it } from "vitest";
import { type FailureKind, trialError } from "../src/record/index.ts";
import type { TrialSandbox } from "../src/sandbox/index.ts";
import { diskFullOr } from "../src/trial/disk-full.ts";

/** Only fullFolder is asked; the rest of the sandbox is never touched. */
function box(full: () => Promise<string | null>): TrialSandbox {
  return { fullFolder: full } as unknown as TrialSandbox;
}
const FULL = box(async () => "/home/agent (16384 of 16384 KiB used)");

describe("diskFullOr", () => {
  it.each<FailureKind>(["harness-exit", "agent-exit", "solution-failed"])(
    "turns %s with a full folder into disk-full, keeping the original in the message",
    async (kind) => {
      const error = await diskFullOr(FULL, trialError(kind, "exited with 1"));
      expect(error).toMatchObject({ kind: "disk-full", owner: "agent" });
      expect(error?.message).toBe(
        `/home/agent (16384 of 16384 KiB used) is full; the agent phase ended with ${kind}: exited with 1`,
      );
    },
  );

  it.each<FailureKind>(["harness-start", "rate-limit", "provider-outage", "timeout", "cancelled", "sandbox"])(
    "leaves %s alone, full disk or not",
    async (kind) => {
      const error = trialError(kind, "x");
      expect(await diskFullOr(FULL, error)).toBe(error);
    },
  );

  it("leaves the error when no folder is full, when the look fails, and a finished agent alone", async () => {
    const error = trialError("harness-exit", "x");
    expect(
      await diskFullOr(
        box(async () => null),
        error,
      ),
    ).toBe(error);
    expect(
      await diskFullOr(
        box(() => Promise.reject(new Error("daemon gone"))),
        error,
      ),
    ).toBe(error);
    expect(await diskFullOr(FULL, null)).toBeNull();
  });
});
