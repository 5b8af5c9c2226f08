// Regime U run live (src/triage/live-advisory.ts) over a scripted unit runner: the running total, the
// unit that crosses B, a run cut at what is left of B, a run cut at phase 0's own cap (scored as phase 0
// scores it), and the unit not run when the total is exactly B. Expected values worked out by hand.
import { describe, expect, it } from "vitest";
import { executeAdvisoryLive, NOT_RUN, type TriageUnit, type UnitOutcome } from "../src/triage/index.ts";

const unit = (id: string, unsolvable = false): TriageUnit => ({
  id,
  text: id,
  value: 1,
  unsolvable,
  source: {
    kind: "item",
    pool: "p",
    item: { id, prompt: id, answer: "x", checker: "exact", tolerance: 0, unsolvable },
  },
});

/** A runner whose unit `id` needs `need[id]` tokens and is right when `right[id]`; a cap below the need cuts it there. */
function runner(need: Record<string, number>, right: Record<string, boolean>) {
  const caps: number[] = [];
  const run = async (u: TriageUnit, cap: number): Promise<UnitOutcome> => {
    caps.push(cap);
    const cut = cap < need[u.id]!;
    const cost = cut ? cap : need[u.id]!;
    return {
      cost,
      correct: right[u.id] ?? false,
      capped: cut,
      answer: "",
      reply: "",
      stopReason: cut ? "max-tokens" : "end",
      inputTokens: 0,
    };
  };
  return { run, caps };
}

const rows = (r: Awaited<ReturnType<typeof executeAdvisoryLive>>) =>
  r.steps.map((s) => [s.id, s.limit, s.cost, s.correct, s.truncated]);

describe("executeAdvisoryLive", () => {
  it("adds actual costs, caps each run at what is left of B, and stops at the unit that crosses B", async () => {
    // B = 1000; a 300 (right), b 500 (wrong), c 400 (right), d never reached.
    // a: cap 1000, total 300, scores; b: cap 700, total 800; c: cap 200, cut at 200 (it needs 400): truncated
    const { run, caps } = runner({ a: 300, b: 500, c: 400, d: 10 }, { a: true, c: true, d: true });
    const r = await executeAdvisoryLive(
      ["a", "b", "c", "d"].map((id) => ({ unit: unit(id) })),
      1000,
      run,
      "k",
      16_384,
    );
    expect(caps).toEqual([1000, 700, 200]);
    expect(rows(r)).toEqual([
      ["a", 1000, 300, true, false],
      ["b", 700, 500, false, false],
      ["c", 200, 200, false, true],
    ]);
    expect(r.value).toBe(1);
  });

  it("scores a run cut at phase 0's own cap as phase 0 would, and records the unit after an exact B as not run", async () => {
    // own cap 250, B = 600. a needs 400 but is cut at its own cap 250 (< 600 left): not truncated, scored by
    // its answer (right here) as phase 0 would; total 250. b: cap min(250, 350) = 250, takes 250 (not cut,
    // right): total 500. c: cap min(250, 100) = 100, takes 100: total 600 = B, not past it, right.
    // d: nothing left: truncated without a call. V = 3.
    const { run, caps } = runner({ a: 400, b: 250, c: 100, d: 50 }, { a: true, b: true, c: true, d: true });
    const plan = ["a", "b", "c", "d"].map((id) => ({ unit: unit(id) }));
    const r = await executeAdvisoryLive(plan, 600, run, "k", 250);
    expect(caps).toEqual([250, 250, 100]);
    expect(rows(r)).toEqual([
      ["a", 250, 250, true, false],
      ["b", 250, 250, true, false],
      ["c", 100, 100, true, false],
      ["d", 0, 0, false, true],
    ]);
    expect(r.steps[3]!.stopReason).toBe(NOT_RUN);
    expect(r.value).toBe(3);
  });

  it("never scores an unsolvable unit, and a cost past what was left (a provider overshooting) truncates", async () => {
    // B = 500: x (unsolvable, 'right') 200: total 200, scores 0; a: cap 300, the runner reports 350 anyway
    const overshoot = async (u: TriageUnit, cap: number): Promise<UnitOutcome> => ({
      cost: u.id === "a" ? cap + 50 : 200,
      correct: true,
      capped: false,
      answer: "",
      reply: "",
      stopReason: "end",
      inputTokens: 0,
    });
    const r = await executeAdvisoryLive(
      [{ unit: unit("x", true) }, { unit: unit("a") }],
      500,
      overshoot,
      "k",
      1e9,
    );
    expect(rows(r)).toEqual([
      ["x", 500, 200, false, false],
      ["a", 300, 350, false, true],
    ]);
    expect(r.value).toBe(0);
  });
});
