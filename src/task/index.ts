// The task concern's public face: schemas, loading, digests, condition file sets, scaffolding.
export * from "./canary.ts";
export * from "./convention-markers.ts";
export * from "./digest.ts";
export { DEFAULT_ENVIRONMENT_FILE_MB } from "./environment-files.ts";
export * from "./fileset.ts";
export * from "./inline.ts";
export * from "./items.ts";
export * from "./listing.ts";
export * from "./load.ts";
export type { OutputFormat } from "./output-templates.ts";
export * from "./problems.ts";
export * from "./rules.ts";
export * from "./scaffold.ts";
export * from "./schema.ts";
export * from "./task-digests.ts";
export { isWorkPath, WORK_PATH_RULE } from "./work-path.ts";
