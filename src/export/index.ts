// The export concern's public face: kgate tasks in Harbor / Terminal-Bench and BenchFlow /
// SkillsBench task layouts (export), single-turn rows for trainers with their Python reward, Harbor
// tasks as kgate task skeletons (import), and a run's trajectories in Harbor's ATIF.
export { type AtifRunExport, exportRunTrajectories } from "./atif-run.ts";
export { ATIF_VERSION, AtifTrajectory } from "./atif-schema.ts";
export { type CalibrationFacts, calibratedIds, calibrationFacts } from "./calibration.ts";
export { exportCanary, PUBLICATION_WARNING } from "./canary.ts";
export { SKILL_HOMES } from "./dockerfile.ts";
export {
  type ExportedFolder,
  type ExportOptions,
  type ExportResult,
  exportTasks,
  type TaskExport,
} from "./export.ts";
export { type ImportResult, importHarborTask } from "./harbor-import.ts";
export type { ExportLayout } from "./layout.ts";
export { ManifestLine } from "./manifest-lines.ts";
export { exportRows, type RowsExport, type RowsExportOptions } from "./rows/export-rows.ts";
export { judgeGradedIds } from "./rows/scorer.ts";
export { parseSplit } from "./split.ts";
export { exportTraining } from "./training/export-training.ts";
export { checkRegistry } from "./training/images.ts";
