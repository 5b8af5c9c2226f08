// The calibration concern's public face: config, plan, run directory, engine, statistics, the
// retain rule, sequential screening, progress, and the summary that reports render.

export * from "./admission.ts";
export * from "./backend.ts";
export * from "./budget.ts";
export * from "./cells.ts";
export * from "./config.ts";
export * from "./cross.ts";
export * from "./curtail.ts";
export * from "./curtail-order.ts";
export * from "./estimate.ts";
export * from "./judges.ts";
export * from "./overrides.ts";
export * from "./plan.ts";
export * from "./policy.ts";
export * from "./progress.ts";
export * from "./refused.ts";
export * from "./reports.ts";
export * from "./requirement.ts";
export * from "./rule.ts";
export * from "./rundir.ts";
export * from "./scheduler.ts";

export * from "./sequential.ts";
export * from "./session.ts";
export * from "./stats.ts";
export * from "./summarise.ts";
export * from "./summary-words.ts";
export * from "./tally.ts";
