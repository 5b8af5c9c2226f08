// The exam protocol's public face (issue 19): N units under one shared token budget; plans, point
// schemes and orderings, prompts, effort attribution and its statistics.

export * from "./analysis.ts";
export * from "./attribution.ts";
export * from "./chart.ts";
export * from "./cost.ts";
export * from "./format.ts";
export * from "./inline-task-exam.ts";
export * from "./item-exam.ts";
export * from "./plan.ts";
export * from "./points.ts";
export * from "./prompts.ts";
export * from "./random.ts";
export * from "./record.ts";
export * from "./reference.ts";
export * from "./reference-run.ts";
export * from "./reference-sources.ts";
export * from "./run.ts";
export * from "./runners.ts";
export * from "./session.ts";
export * from "./stats.ts";
export * from "./summary.ts";
export * from "./task-exam.ts";
