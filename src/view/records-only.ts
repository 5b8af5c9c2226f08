// A run without a calibration plan (`kgate run`, or a protocol's run) seen through its records
// alone: one cell per agent and condition, the latest attempt of each trial counted, the
// configurations as the records name them, and no decisions (there is no rule to decide by).
import { outcomeOf, type TrialRecord } from "../record/index.ts";
import type { SourceRow, ViewSource } from "./data.ts";
import type { ViewCell, ViewRun } from "./schema.ts";

export function sourceOfRecords(
  runId: string,
  records: readonly TrialRecord[],
  warnings: string[],
): ViewSource {
  const slot = (r: TrialRecord) => `${r.task.id} ${r.agent.name} ${r.condition} ${r.index}`;
  const latest = new Map<string, TrialRecord>();
  for (const r of records) {
    const seen = latest.get(slot(r));
    if (!seen || r.attempt >= seen.attempt) latest.set(slot(r), r);
  }
  const rows: SourceRow[] = records.map((r) => {
    const cell = `${r.agent.name} ${r.condition}`;
    return {
      trialId: r.trialId,
      task: r.task.id,
      cell,
      spec: cell,
      agent: r.agent.name,
      condition: r.condition,
      index: r.index,
      attempt: r.attempt,
      superseded: latest.get(slot(r)) !== r,
      outcome: outcomeOf(r),
      attribution: r.verdict.attribution,
      stopReason: r.stopReason,
      inputTokens: r.usage.inputTokens,
      outputTokens: r.usage.outputTokens,
      cacheReadTokens: r.usage.cacheReadTokens,
      cacheWriteTokens: r.usage.cacheWriteTokens,
      durationMs: Math.max(0, Date.parse(r.finishedAt) - Date.parse(r.startedAt)),
      mustFail: r.condition === "-A",
    };
  });
  const cells = new Map<string, ViewCell>();
  for (const row of rows) {
    if (row.superseded) continue;
    const key = `${row.task} ${row.cell}`;
    const cell = cells.get(key) ?? {
      task: row.task,
      label: row.cell,
      spec: row.spec,
      condition: row.condition,
      passes: 0,
      runs: 0,
    };
    if (row.outcome === "pass") cell.passes += 1;
    if (row.outcome === "pass" || row.outcome === "fail") cell.runs += 1;
    cells.set(key, cell);
  }
  const configurations = new Map<string, ViewRun["configurations"][number]>();
  for (const r of records) {
    const label = `${r.agent.name} ${r.condition}`;
    if (configurations.has(label)) continue;
    configurations.set(label, {
      label,
      agent: r.agent.name,
      model: r.agent.model,
      harness: [r.agent.harness, r.provenance?.harnessVersion].filter(Boolean).join(" "),
      provider: "not recorded",
      digest: r.agent.digest,
    });
  }
  const started = records.map((r) => r.startedAt).sort();
  return {
    run: {
      id: runId,
      createdAt: started[0] ?? "",
      mode: "records only (no plan.json)",
      configurations: [...configurations.values()],
      cells: [...cells.values()],
      decisions: {},
      warnings,
    },
    rows,
  };
}
