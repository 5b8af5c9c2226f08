// The monitoring section of a calibration report (Markdown): delta per cell with its interval, the
// profile, the -A withdraw rate and the prospective choice mix, from the run's records alone.
import { analyseRunRecords, runMonitoringMarkdown } from "../monitor/index.ts";
import type { TrialRecord } from "../trial/index.ts";

/** Empty when no record of the run carries probe results. */
export function monitoringSection(records: readonly TrialRecord[]): string {
  if (!records.some((r) => r.monitor !== null)) return "";
  return `\n## Monitoring (docs/monitoring.md)\n\n${runMonitoringMarkdown(analyseRunRecords(records))}`;
}
