// The shared helpers' public face: statistics (one interval type, Wilson, one bootstrap, ranks and
// correlations), JSON-lines files (a torn-line-safe append, a schema-checked reader), field paths,
// the run-time TypeScript loader for a project's own modules, and esbuild's one-module bundle.
// A leaf below the protocols: it imports nothing of kgate, and every folder may import it.
export * from "./bundle-module.ts";
export * from "./field-path.ts";
export * from "./jsonl.ts";
export * from "./statistics.ts";
export * from "./typescript-imports.ts";
