// The viewer concern's public face: the view data built from runs, the static export and the
// local server. Like the reports it reads a run's files only.
export * from "./data.ts";
export * from "./export.ts";
export * from "./records-only.ts";
export * from "./schema.ts";
export * from "./server.ts";
export * from "./site.ts";
export * from "./trajectory.ts";
