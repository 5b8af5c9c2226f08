// The audit report of several tasks, its totals and exit code, and what each rule means.
import { type Counts, countFindings, type TaskAudit } from "./audit.ts";
import type { Finding } from "./findings.ts";
import type { RuleId } from "./rules.ts";

export interface AuditReport {
  tasks: TaskAudit[];
  counts: Counts;
  /** Tasks that could not be audited (missing or invalid audit file, invalid task). */
  invalid: number;
}

export const RULES: Record<RuleId, { name: string; description: string; level: "error" | "warning" }> = {
  "gated-number": {
    name: "GatedNumber",
    description:
      "A declared gated constant, in any equivalent form (percent, multiplier, complement, fraction, basis points, reciprocal, words), appears in the instruction or environment.",
    level: "error",
  },
  "gated-string": {
    name: "GatedString",
    description: "A declared private name or alias appears.",
    level: "error",
  },
  "gated-phrase": {
    name: "GatedPhrase",
    description: "A declared phrase of the artefact appears.",
    level: "error",
  },
  "alias-table": {
    name: "AliasTable",
    description: "k or more entries of one declared alias table appear in one file.",
    level: "error",
  },
  "artefact-canary": {
    name: "ArtefactCanary",
    description: "The artefact's canary GUID appears.",
    level: "error",
  },
  "artefact-name": {
    name: "ArtefactName",
    description: "The artefact's file name or path appears.",
    level: "error",
  },
  "artefact-title": { name: "ArtefactTitle", description: "The artefact's title appears.", level: "error" },
  "artefact-prose": {
    name: "ArtefactProse",
    description: "A run of words copied from the artefact's prose appears.",
    level: "error",
  },
  "artefact-code": {
    name: "ArtefactCode",
    description:
      "Code of the environment matches a code block or the formula lines of the artefact (winnowed fingerprints of tokens, names, literals and layout normalised).",
    level: "error",
  },
  "artefact-id": {
    name: "ArtefactId",
    description: "An identifier of the artefact (a code like HYD-BF-3 in its title or first lines) appears.",
    level: "error",
  },
  coverage: {
    name: "Coverage",
    description: "A number of the artefact is neither declared as gated nor listed as ignored.",
    level: "warning",
  },
  "allowlist-unused": {
    name: "AllowlistUnused",
    description: "An allowlist entry matches no finding.",
    level: "warning",
  },
  "allowlist-no-reason": {
    name: "AllowlistNoReason",
    description: "An allowlist entry has no reason.",
    level: "error",
  },
  "allowlist-expired": {
    name: "AllowlistExpired",
    description: "An allowlist entry has expired.",
    level: "warning",
  },
  "unreadable-file": {
    name: "UnreadableFile",
    description: "An environment file could not be read, so it cannot be shown to be free of leaks.",
    level: "error",
  },
};

export function buildReport(tasks: TaskAudit[]): AuditReport {
  const all: Finding[] = tasks.flatMap((t) => t.findings);
  return { tasks, counts: countFindings(all), invalid: tasks.filter((t) => t.status === "invalid").length };
}

/** 2 when a task could not be audited, 1 when an unsuppressed finding is an error, else 0. */
export function exitCodeOf(report: AuditReport): number {
  if (report.invalid > 0) return 2;
  return report.counts.error > 0 ? 1 : 0;
}

/** A copy of the report with every matched value replaced by a mask (unless `show`). */
export function redactReport(report: AuditReport, show: boolean): AuditReport {
  if (show) return report;
  return {
    ...report,
    tasks: report.tasks.map((t) => ({
      ...t,
      findings: t.findings.map((f) => ({ ...f, match: redact(f.match) })),
    })),
  };
}

export function redact(match: string | undefined): string | undefined {
  return match === undefined ? undefined : `[hidden: ${match.length} chars]`;
}

export function locationText(f: Finding): string {
  const l = f.location;
  const parts: string[] = [];
  if (l.line !== undefined) parts.push(`${f.file}:${l.line}:${l.column}`);
  else parts.push(f.file);
  const extra = [l.cell, l.part].filter(Boolean).join(", ");
  return extra ? `${parts[0]} [${extra}]` : parts[0]!;
}
