// The monitoring section of a calibration report, in Markdown (report.md) and in HTML (report.html):
// delta per cell with its interval, the profile, the -A withdraw rate and the prospective choice
// mix, from the run's records alone.

import type { TrialRecord } from "../record/index.ts";
import { analyseRunRecords } from "./runs.ts";
import { runMonitoringHtml, runMonitoringMarkdown } from "./runs-table.ts";

const probed = (records: readonly TrialRecord[]) => records.some((r) => r.monitor !== null);

/** Empty when no record of the run carries question results. */
export function monitoringSection(records: readonly TrialRecord[]): string {
  if (!probed(records)) return "";
  return `\n## Monitoring (docs/monitoring.md)\n\n${runMonitoringMarkdown(analyseRunRecords(records))}`;
}

/** The HTML form, to go before the page's closing body tag; empty without question results. */
export function monitoringHtmlSection(records: readonly TrialRecord[]): string {
  if (!probed(records)) return "";
  return `<h2 id="monitoring">Monitoring (docs/monitoring.md)</h2>\n${runMonitoringHtml(analyseRunRecords(records))}\n`;
}
