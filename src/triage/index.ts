// The triage protocol's public face: pools of units, phase 0, the plan prompt and its parsing,
// regimes U and E, the knapsack oracle, the random baseline, eta / regret / D / W, and the report.
export * from "./baseline.ts";
export * from "./cost.ts";
export * from "./inline-unit.ts";
export * from "./item-unit.ts";
export * from "./live.ts";
export * from "./live-advisory.ts";
export * from "./load-pool.ts";
export * from "./oracle.ts";
export * from "./phase0-file.ts";
export * from "./plan.ts";
export * from "./planner.ts";
export * from "./pool.ts";
export * from "./prompt.ts";
export * from "./records.ts";
export * from "./regimes.ts";
export * from "./report.ts";
export * from "./resolve.ts";
export * from "./run.ts";
export * from "./scores.ts";
export * from "./summary.ts";
export * from "./task-live.ts";
export * from "./task-unit.ts";
