// The triage protocol's public face: pools of units, phase 0, the plan prompt and its parsing,
// regimes U and E, the knapsack oracle, the random baseline, eta / regret / D / W, and the report.
export * from "./baseline.ts";
export * from "./oracle.ts";
export * from "./phase0-file.ts";
export * from "./plan.ts";
export * from "./regimes.ts";
export * from "./scores.ts";
