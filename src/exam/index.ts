// The exam protocol's public face (issue 19): N units under one shared token budget; plans, point
// schemes and orderings, prompts, effort attribution and its statistics.
export * from "./attribution.ts";
export * from "./plan.ts";
export * from "./points.ts";
export * from "./prompts.ts";
export * from "./random.ts";
export * from "./stats.ts";
