// The shared helpers' public face: statistics (one interval type, Wilson, one bootstrap, ranks and
// correlations), JSON-lines files (a torn-line-safe append, a schema-checked reader), field paths,
// the one CSV reader, the run-time TypeScript loader for a project's own modules, esbuild's one-module bundle, and who
// owns a resource of this host (a process, by pid and start time) with the temp folders named so.
// A leaf below the protocols: it imports nothing of kgate, and every folder may import it.
export * from "./bundle-module.ts";
export * from "./canonical-json.ts";
export * from "./csv.ts";
export * from "./field-path.ts";
export * from "./jsonl.ts";
export * from "./owned-folders.ts";
export * from "./owner.ts";
export * from "./run-settings.ts";
export * from "./statistics.ts";
export * from "./typescript-imports.ts";
