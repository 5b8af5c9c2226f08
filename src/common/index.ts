// The shared helpers' public face: statistics (one interval type, Wilson, one bootstrap, ranks and
// correlations), JSON-lines files (a torn-line-safe append, a schema-checked reader), field paths.
// A leaf below the protocols: it imports nothing of kgate, and every folder may import it.
export * from "./field-path.ts";
export * from "./jsonl.ts";
export * from "./statistics.ts";
