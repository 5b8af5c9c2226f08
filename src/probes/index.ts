// The probes concern's public face: inline trials and the diagnostic probes built on them.
export * from "./inline-trial.ts";
