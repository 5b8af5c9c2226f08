// The monitoring section of a calibration report (Markdown): delta per cell with its interval, the
// profile, the -A withdraw rate and the prospective choice mix, from the run's records alone.

import type { TrialRecord } from "../model/index.ts";
import { analyseRunRecords } from "./runs.ts";
import { runMonitoringMarkdown } from "./runs-table.ts";

/** Empty when no record of the run carries probe results. */
export function monitoringSection(records: readonly TrialRecord[]): string {
  if (!records.some((r) => r.monitor !== null)) return "";
  return `\n## Monitoring (docs/monitoring.md)\n\n${runMonitoringMarkdown(analyseRunRecords(records))}`;
}
