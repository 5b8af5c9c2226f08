// The export concern's public face: kgate tasks in Harbor / Terminal-Bench and BenchFlow /
// SkillsBench task layouts (export), and Harbor tasks as kgate task skeletons (import).
export { SKILL_HOMES } from "./dockerfile.ts";
export { type ExportedFolder, type ExportOptions, exportTasks, type TaskExport } from "./export.ts";
export { type ImportResult, importHarborTask } from "./harbor-import.ts";
export type { ExportLayout } from "./layout.ts";
