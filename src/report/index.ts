// The report concern's public face: the summary schema and the Markdown, SVG and HTML writers.
// Reports are made from a run's files alone (plan and records), never by running a trial.
export * from "./csv.ts";
export * from "./format.ts";
export * from "./html.ts";
export * from "./markdown.ts";
export * from "./markdown-table.ts";
export * from "./passk.ts";
export * from "./provenance.ts";
export * from "./rubric.ts";
export * from "./schema.ts";
export * from "./svg.ts";
export * from "./tables.ts";
