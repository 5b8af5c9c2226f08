// The probes concern's public face: the diagnostic probes run as units of the one engine
// (recitation layers, canary contamination, the compression curve), with the conventions they ask for and score.
export * from "./canary.ts";
export * from "./compress.ts";
export * from "./conventions.ts";
export * from "./cost.ts";
export * from "./curve-svg.ts";
export * from "./models.ts";
export * from "./probe-log.ts";
export * from "./recite.ts";
export * from "./run.ts";
