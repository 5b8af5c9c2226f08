// The export concern's public face: kgate tasks in Harbor / Terminal-Bench and BenchFlow /
// SkillsBench task layouts (export), and Harbor tasks as kgate task skeletons (import).
export { BUNDLE_TARGET } from "./bundle.ts";
export { EXPORT_BASE, SKILL_HOMES, WORKDIR } from "./dockerfile.ts";
export {
  conditionsOf,
  type ExportedFolder,
  type ExportOptions,
  exportTasks,
  type TaskExport,
} from "./export.ts";
export { type ImportResult, importHarborTask, importTaskId } from "./harbor-import.ts";
export { HarborTaskError } from "./harbor-toml.ts";
export { type ExportLayout, exportName } from "./layout.ts";
export { type ExportManifest, ExportManifestSchema } from "./manifest.ts";
export { HARBOR_SCHEMA_VERSION } from "./task-toml.ts";
