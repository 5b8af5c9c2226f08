// The TrialRecord and its parts as zod schemas and types (the shared vocabulary): conditions, usage,
// stop reasons, the failure taxonomy, trajectory events, verdicts and sandbox requirements. It
// imports nothing of kgate.
export * from "./budget.ts";
export * from "./condition.ts";
export * from "./failure.ts";
export * from "./monitor.ts";
export * from "./outcome.ts";
export * from "./record.ts";
export * from "./sandbox.ts";
export * from "./trajectory.ts";
export * from "./usage.ts";
export * from "./verdict.ts";
