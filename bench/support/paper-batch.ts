// A batch shaped like the paper's calibration (Tian et al., 2026, "Ignorance or Incompetence?
// Constructing Knowledge-Gated, Verifiable Tasks for LLM Agents"): 15 candidate tasks at n = 5 under
// frontier+A (>= 0.6), frontier-A (= 0) and mid+A (<= 0.4). The paper gives the cells' pooled figures,
// frontier +A 68.0% (51/75), frontier -A 0% (0/75), mid +A 22.7% (17/75), and 7 tasks retained; the
// split over tasks below is one that reproduces them (7 retain, 3 revise, 5 discard, hand-summed in
// the comments). Each task's per-cell pass rate is its passes / 5: what the benchmarks take as the
// probability that a trial of that cell passes.

export const PAPER_CELLS = [
  { name: "frontier+A", agent: "frontier", condition: "+A", require: ">= 0.6" },
  { name: "frontier-A", agent: "frontier", condition: "-A", require: "= 0" },
  { name: "mid+A", agent: "mid", condition: "+A", require: "<= 0.4" },
] as const;

/** The perturbed-artefact control the default cells add (the paper's bom-costing control passed 0/5). */
export const PAPER_CONTROL = {
  name: "control",
  agent: "frontier",
  condition: "perturbed",
  require: "= 0",
  control: true,
} as const;

export interface PaperTask {
  id: string;
  /** Passes of 5 per cell label. */
  passes: Record<string, number>;
  decision: "retain" | "revise" | "discard";
}

const task = (n: number, plusA: number, mid: number, decision: PaperTask["decision"]): PaperTask => ({
  id: `t${String(n).padStart(2, "0")}`,
  passes: { "frontier+A": plusA, "frontier-A": 0, "mid+A": mid },
  decision,
});

/**
 * t01-t04 retain (+A 5/5, mid 1/5), t05 retain (5/5, 0/5), t06-t07 retain (+A 4/5: 3/5 would still
 * meet it, so not fragile; mid 0/5), t08-t10 revise (mid 3/5 misses "<= 0.4" by one trial), t11
 * discard (mid 4/5 misses by two), t12-t15 discard (+A 0/5). frontier+A: 4 x 5 + 5 + 2 x 4 + 3 x 5 +
 * 3 = 51; mid+A: 4 x 1 + 3 x 3 + 4 = 17; frontier-A: 0.
 */
export const PAPER_BATCH: readonly PaperTask[] = [
  ...[1, 2, 3, 4].map((n) => task(n, 5, 1, "retain")),
  task(5, 5, 0, "retain"),
  ...[6, 7].map((n) => task(n, 4, 0, "retain")),
  ...[8, 9, 10].map((n) => task(n, 5, 3, "revise")),
  task(11, 3, 4, "discard"),
  ...[12, 13, 14, 15].map((n) => task(n, 0, 0, "discard")),
];

/** A task's per-cell pass rates: passes / 5 (the control, when there is one, never passes). */
export const ratesOf = (t: PaperTask): Record<string, number> =>
  Object.fromEntries([...Object.entries(t.passes).map(([c, k]) => [c, k / 5]), ["control", 0]]);
