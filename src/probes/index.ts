// The probes concern's public face: inline trials and the diagnostic probes built on them
// (recitation layers, canary contamination, the compression curve), with the conventions they ask for and score.
export * from "./canary.ts";
export * from "./compress.ts";
export * from "./conventions.ts";
export * from "./converse.ts";
export * from "./curve-svg.ts";
export * from "./inline-trial.ts";
export * from "./models.ts";
export * from "./probe-log.ts";
export * from "./recite.ts";
export * from "./sections.ts";
