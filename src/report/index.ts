// The report concern's public face: the summary schema, the record reader, and the Markdown, SVG
// and HTML writers. Reports are made from a run's files alone (plan and records).
export * from "./format.ts";
export * from "./html.ts";
export * from "./markdown.ts";
export * from "./model.ts";
export * from "./records.ts";
export * from "./svg.ts";
