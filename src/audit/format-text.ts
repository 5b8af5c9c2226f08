// Human-readable audit output: one block per task, findings with location, rule and fingerprint;
// matched values hidden unless asked (they are the secrets the audit protects).
import { pc } from "../colours.ts";
import type { Finding } from "./findings.ts";
import { type AuditReport, locationText } from "./report.ts";

type Colours = Pick<typeof pc, "red" | "yellow" | "dim" | "green" | "bold">;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function findingLines(f: Finding, show: boolean, c: Colours): string[] {
  const mark = f.suppressed
    ? c.dim("suppressed")
    : f.severity === "error"
      ? c.red("error     ")
      : c.yellow("warning   ");
  const match =
    f.match === undefined
      ? ""
      : show
        ? ` · match ${JSON.stringify(f.match)}`
        : ` · match [hidden: ${f.match.length} chars; --show reveals]`;
  const lines = [`  ${mark} ${locationText(f)}  ${f.message}`];
  if (f.related) lines.push(c.dim(`             and ${locationText({ ...f, ...f.related })}`));
  lines.push(c.dim(`             ${f.rule}${match} · fingerprint ${f.fingerprint}`));
  if (f.suppressed)
    lines.push(
      c.dim(
        `             allowed: ${f.suppressed.reason}${f.suppressed.expires ? ` (until ${f.suppressed.expires})` : ""}`,
      ),
    );
  return lines;
}

export function formatText(report: AuditReport, options: { show: boolean; colour: boolean }): string {
  const c: Colours = options.colour
    ? pc
    : { red: String, yellow: String, dim: String, green: String, bold: String };
  const out: string[] = [];
  for (const task of report.tasks) {
    if (task.status === "invalid") {
      out.push(`${c.bold(task.id)}: ${c.red("cannot be audited")}`);
      for (const p of task.problems)
        out.push(`  ${c.red("error     ")} ${p.file}${p.field ? `: ${p.field}` : ""}: ${p.message}`);
      continue;
    }
    const { error, warning, suppressed } = task.counts;
    const summary = error > 0 ? c.red(plural(error, "error")) : c.green("no leaks");
    out.push(
      `${c.bold(task.id)}: ${summary}, ${plural(warning, "warning")}, ${suppressed} suppressed (${plural(task.files, "file")} scanned)`,
    );
    const order = (f: Finding) => (f.suppressed ? 2 : f.severity === "error" ? 0 : 1);
    for (const f of [...task.findings].sort((a, b) => order(a) - order(b)))
      out.push(...findingLines(f, options.show, c));
  }
  const { error, warning, suppressed } = report.counts;
  out.push(
    `${plural(report.tasks.length, "task")} audited: ${plural(error, "error")}, ${plural(warning, "warning")}, ${suppressed} suppressed${report.invalid ? `, ${report.invalid} could not be audited` : ""}`,
  );
  return `${out.join("\n")}\n`;
}
