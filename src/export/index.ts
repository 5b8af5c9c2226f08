// The export concern's public face: kgate tasks in Harbor / Terminal-Bench and BenchFlow /
// SkillsBench task layouts (export), Harbor tasks as kgate task skeletons (import), and a run's
// trajectories in Harbor's ATIF.
export { type AtifRunExport, exportRunTrajectories } from "./atif-run.ts";
export { ATIF_VERSION, AtifTrajectory } from "./atif-schema.ts";
export { SKILL_HOMES } from "./dockerfile.ts";
export { type ExportedFolder, type ExportOptions, exportTasks, type TaskExport } from "./export.ts";
export { type ImportResult, importHarborTask } from "./harbor-import.ts";
export type { ExportLayout } from "./layout.ts";
