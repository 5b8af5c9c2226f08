// Text rendering for `kgate show`: a trial's header, one line (plus an excerpt) per trajectory event,
// and a run's table of trials. Colour only on a TTY (src/colours.ts).

import { pc } from "../colours.ts";
import {
  type TrajectoryEvent,
  type TrialBudget,
  type TrialRecord,
  trialCostUsd,
  type Usage,
} from "../record/index.ts";

const EXCERPT_LINES = 8;
const num = (n: number) => n.toLocaleString("en-US");

export function formatUsage(u: Usage): string {
  const cost = u.costUsd === null ? "no pricing" : `$${u.costUsd.toFixed(4)}`;
  return `${num(u.inputTokens)} in · ${num(u.outputTokens)} out · ${num(u.cacheReadTokens)} cache read · ${num(u.cacheWriteTokens)} cache write · ${u.modelCalls} calls · ${cost}`;
}

const yesNo = (v: boolean | null) => (v === null ? "n/a" : v ? "yes" : "no");

/** Whether a verdict was scored by rubric criteria (they carry a weight; the reference comparison does not). */
export function isRubricVerdict(v: TrialRecord["verdict"]): boolean {
  return v.criteria.some((c) => c.weight !== undefined);
}

/**
 * Why a trial failed: its reason, each failed criterion with its detail, the attribution's agreement
 * shares and the verifier's capped expected-vs-actual diff (empty for a pass). A rubric verdict lists
 * every criterion, passed or not, with its weight, pass or fail.
 */
export function verdictDetail(r: TrialRecord): string[] {
  const v = r.verdict;
  const rubric = isRubricVerdict(v);
  if (v.status === "pass" && !rubric) return [];
  const lines: string[] = [];
  if (v.reason) lines.push(`  reason    ${v.reason}`);
  if (rubric) {
    const passed = v.criteria.filter((c) => c.passed).length;
    lines.push(
      `  criteria  ${passed} of ${v.criteria.length} passed (reward: their product; score: their mean by weight)`,
    );
  }
  for (const c of rubric ? v.criteria : v.criteria.filter((c) => !c.passed)) {
    const mark = c.passed ? pc.green("✓") : pc.red("✗");
    const weight = c.weight === undefined ? "" : pc.dim(` [weight ${c.weight}]`);
    const judge = c.judge ? pc.dim(` [judge ${c.judge.config}: ${c.judge.verdict}]`) : "";
    lines.push(`  ${mark} ${c.name}${weight}${judge}${c.detail ? `: ${c.detail}` : ""}`);
  }
  const shares = Object.entries(v.agreement ?? {});
  if (shares.length > 0) {
    lines.push(`  agreement ${shares.map(([label, share]) => `${label} ${share.toFixed(2)}`).join(" · ")}`);
  }
  if (v.diff)
    lines.push(
      ...v.diff
        .replace(/\n+$/, "")
        .split("\n")
        .map((l) => pc.dim(`  | ${l}`)),
    );
  return lines;
}

/** The limits a trial ran under, in one line (a record older than the budget has none). */
export function formatBudget(b: TrialBudget | null): string {
  if (!b) return pc.dim("not recorded (a record older than the budget)");
  const parts = [
    `${b.wallClockSec} s`,
    `${num(b.tokens)} tokens`,
    ...(b.outputTokens === null ? [] : [`${num(b.outputTokens)} output tokens`]),
    `${b.turns} turns`,
  ];
  const deadline = b.sandboxDeadlineSec === null ? "" : `  sandbox ends by ${b.sandboxDeadlineSec} s`;
  return `${parts.join(" · ")}${pc.dim(deadline)}`;
}

export function formatRecordHeader(r: TrialRecord, eventCount: number): string {
  const verdict =
    r.verdict.status === "pass"
      ? pc.green("PASS")
      : r.verdict.status === "fail"
        ? pc.red("FAIL")
        : pc.yellow(r.verdict.status.toUpperCase());
  const attribution = r.verdict.attribution ? `  attribution ${r.verdict.attribution}` : "";
  const seconds = (Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000;
  const phases = Object.entries(r.phases)
    .map(([name, p]) => `${name} ${(p.durationMs / 1000).toFixed(1)} s`)
    .join(" · ");
  const lines = [
    pc.bold(`trial ${r.trialId}`) + pc.dim(`  (run ${r.runId}, attempt ${r.attempt})`),
    `task        ${r.task.id}  ${r.condition}  artefact listed: ${yesNo(r.artefactListed)}  opened: ${yesNo(r.artefactOpened)}`,
    `agent       ${r.agent.name}  ${r.agent.harness}  ${r.agent.model ?? "-"}  ${pc.dim(`digest ${r.agent.digest.slice(0, 12)}`)}`,
    `verdict     ${verdict}  reward ${r.verdict.reward.toFixed(2)}  score ${r.verdict.score.toFixed(2)}${attribution}`,
    ...verdictDetail(r),
    `stop        ${r.stopReason}${r.error ? `  ${pc.red(`${r.error.owner}/${r.error.kind}`)}: ${r.error.message.split("\n")[0]}` : ""}`,
    `usage       ${formatUsage(r.usage)}`,
    ...(r.judgeUsage ? [`judges      ${formatUsage(r.judgeUsage)}`] : []),
    `budget      ${formatBudget(r.budget)}`,
    `time        ${seconds.toFixed(1)} s  ${pc.dim(phases)}`,
    `canary      ${r.canaryLeak === null ? "n/a" : r.canaryLeak ? pc.red("LEAKED") : "no leak"}`,
    `trajectory  ${r.trajectory ?? "none"} (${eventCount} events)`,
    "",
  ];
  return `${lines.join("\n")}\n`;
}

function excerpt(text: string, full: boolean): string {
  if (!text) return "";
  const lines = text.replace(/\n+$/, "").split("\n");
  const shown = full ? lines : lines.slice(0, EXCERPT_LINES);
  const more = lines.length - shown.length;
  const body = shown.map((l) => pc.dim(`           | ${l}`)).join("\n");
  return `${body}${more > 0 ? `\n${pc.dim(`           | ... ${more} more line(s) (--full shows all)`)}` : ""}\n`;
}

function oneLine(value: unknown, max = 100): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function toolInput(input: unknown): string {
  const i = (input ?? {}) as Record<string, unknown>;
  for (const key of ["command", "path", "file_path", "pattern", "skill"]) {
    if (typeof i[key] === "string") return oneLine(i[key]);
  }
  return oneLine(input);
}

export function formatEvent(e: TrajectoryEvent, start: number, full: boolean): string {
  const offset = pc.dim(`+${((Date.parse(e.at) - start) / 1000).toFixed(1)}s`.padStart(8));
  const u = e.usage as { input?: number; output?: number; cacheRead?: number } | undefined;
  switch (e.type) {
    case "model": {
      const tokens = u
        ? `${num(u.input ?? 0)} in / ${num(u.output ?? 0)} out${u.cacheRead ? ` / ${num(u.cacheRead)} cached` : ""}`
        : "";
      const text = typeof e.text === "string" ? e.text : "";
      return `${offset}  ${pc.cyan(`model #${e.turn ?? "?"}`)}  ${tokens}  ${pc.dim(String(e.stopReason ?? ""))}\n${excerpt(text, full)}`;
    }
    case "tool-call":
      return `${offset}  ${pc.magenta(`→ ${e.name ?? "tool"}`)}  ${toolInput(e.input)}\n`;
    case "tool-result": {
      const status = e.isError ? pc.red("error") : "ok";
      const extra = e.exitCode !== undefined ? ` exit ${e.exitCode}` : "";
      const name = e.name ? ` ${e.name}` : "";
      return `${offset}  ${pc.magenta(`←${name}`)}  ${status}${extra}${e.timedOut ? " (timed out)" : ""}\n${excerpt(String(e.output ?? ""), full)}`;
    }
    case "error":
      return `${offset}  ${pc.red("error")}  ${e.owner ?? e.class ?? ""}/${e.kind ?? ""} ${oneLine(e.message ?? e.text ?? "", 200)}\n`;
    default: {
      const { at: _at, type: _type, kind, ...rest } = e;
      const detail =
        kind === "start"
          ? `${rest.harness ?? ""} ${rest.model ?? ""} ${oneLine(rest.limits ?? "")}`
          : kind === "stop"
            ? `${rest.stopReason} after ${rest.turns} turn(s)`
            : kind === "retry"
              ? `${rest.failure} (${rest.status ?? "no status"}), retry ${rest.retry}/${rest.of} in ${rest.delayMs} ms`
              : oneLine(rest, 160);
      return `${offset}  ${pc.yellow(String(kind ?? "note"))}  ${detail}\n`;
    }
  }
}

export function formatRunTable(runId: string, records: readonly TrialRecord[]): string {
  if (records.length === 0) return `run ${runId}: no trial records yet\n`;
  const rows = records.map((r) => {
    const tokens =
      r.usage.inputTokens + r.usage.outputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens;
    const usd = trialCostUsd(r);
    const cost = usd === null ? "-" : `$${usd.toFixed(4)}`;
    const error = r.error ? `${r.error.owner}/${r.error.kind}` : "";
    return [r.trialId, r.verdict.status, r.stopReason, num(tokens), cost, error];
  });
  const header = ["trial", "verdict", "stop", "tokens", "cost", "error"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `${cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd()}\n`;
  return `run ${runId}: ${records.length} trial record(s)\n${pc.bold(line(header))}${rows.map(line).join("")}`;
}
