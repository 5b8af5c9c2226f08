// Run and trial ids: one newRunId for every verb (a calibration's and a check's carry a prefix),
// sortable by the time of creation; trial ids name task, condition, agent, index and retry.
import { describe, expect, it } from "vitest";
import { newRunId, trialId } from "../src/trial/index.ts";

describe("run ids", () => {
  const at = new Date("2026-01-30T14:23:01.456Z");

  it("are the UTC time of creation and 4 hex digits, with an optional prefix", () => {
    expect(newRunId(undefined, at)).toMatch(/^20260130-142301-[0-9a-f]{4}$/);
    expect(newRunId("cal", at)).toMatch(/^cal-20260130-142301-[0-9a-f]{4}$/);
    expect(newRunId("check", at)).toMatch(/^check-20260130-142301-[0-9a-f]{4}$/);
  });

  it("sort by time", () => {
    const later = new Date("2026-01-30T14:23:02.000Z");
    expect([newRunId("cal", later), newRunId("cal", at)].sort()[0]!.startsWith("cal-20260130-142301-")).toBe(
      true,
    );
  });
});

describe("trial ids", () => {
  it("name task, condition, agent and index, and the k-th retry", () => {
    expect(trialId("bom", "+A", "frontier", 3)).toBe("bom.with-A.frontier.3");
    expect(trialId("bom", "-A", "mid", 0, 3)).toBe("bom.without-A.mid.0.retry2");
    expect(trialId("bom", "variant:perturbed", "mid", 1)).toBe("bom.variant-perturbed.mid.1");
  });
});
