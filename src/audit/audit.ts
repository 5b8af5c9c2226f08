// One task's leak audit: parse the audit file, compile the rules, scan the instruction and every
// environment file (names included), check coverage of the artefact's numbers, apply the allowlist.
import { type Problem, parseJsonText, problemsFromZod } from "../task/light.ts";
import { applyAllowlist } from "./allowlist.ts";
import { textLocator } from "./document.ts";
import { type Finding, fingerprint } from "./findings.ts";
import type { AuditInput } from "./input.ts";
import { normalise } from "./normalise.ts";
import { scanNumbers } from "./numbers.ts";
import { type ScanJob, scanFiles } from "./parallel.ts";
import { artefactProse, compileRules, type RuleSet } from "./rules.ts";
import type { ScanTarget } from "./scan-file.ts";
import { AuditFile } from "./schema.ts";
import { isTrivialNumber } from "./stated-numbers.ts";

export interface Counts {
  error: number;
  warning: number;
  suppressed: number;
}

export interface TaskAudit {
  id: string;
  /** `invalid`: the audit could not run (missing or invalid audit file, unreadable task). */
  status: "clean" | "findings" | "invalid";
  problems: Problem[];
  findings: Finding[];
  counts: Counts;
  /** Files scanned (instruction and environment). */
  files: number;
  /** Threads that scanned them (scan workers take a share of large environments). */
  threads: number;
}

export function countFindings(findings: readonly Finding[]): Counts {
  const counts: Counts = { error: 0, warning: 0, suppressed: 0 };
  for (const f of findings) {
    if (f.suppressed) counts.suppressed++;
    else counts[f.severity]++;
  }
  return counts;
}

export function invalidAudit(id: string, problems: Problem[]): TaskAudit {
  return {
    id,
    status: "invalid",
    problems,
    findings: [],
    counts: { error: 0, warning: 0, suppressed: 0 },
    files: 0,
    threads: 0,
  };
}

/** Numbers in the artefact that no item declares and ignoreNumbers does not list: one warning per value. */
function coverageFindings(input: AuditInput, audit: AuditFile, rules: RuleSet): Finding[] {
  const prose = artefactProse(input.artefact.text);
  const view = normalise(prose);
  const locate = textLocator(prose, view.map);
  const seen = new Set<number>();
  const out: Finding[] = [];
  scanNumbers(view.text, (lit) => {
    if (isTrivialNumber(lit) || rules.forms.covers(lit)) return;
    if (
      audit.ignoreNumbers.some(
        (n) => Math.abs(n.value - lit.value) <= Math.max(lit.halfUnit, 1e-9 * Math.abs(lit.value)),
      )
    )
      return;
    const key = Number(lit.value.toPrecision(12));
    if (seen.has(key)) return;
    seen.add(key);
    const start = view.map ? view.map[lit.start]! : lit.start;
    const end = view.map ? view.map[lit.end]! : lit.end;
    out.push({
      rule: "coverage",
      severity: "warning",
      task: input.id,
      file: input.artefact.file,
      location: locate(lit.start, lit.end),
      via: [],
      message: `a number of the artefact that no gated item declares: add a "number" item to ${input.audit?.file ?? "the audit file"}, or list it in ignoreNumbers with a reason`,
      match: prose.slice(start, end),
      fingerprint: fingerprint(["coverage", input.id, input.artefact.file, String(key)]),
    });
  });
  return out;
}

export async function runAudit(input: AuditInput, problems: Problem[] = []): Promise<TaskAudit> {
  if (!input.audit) return invalidAudit(input.id, problems);
  const json = parseJsonText(input.audit.file, input.audit.text);
  if (!json.ok) return invalidAudit(input.id, [...problems, json.problem]);
  const parsed = AuditFile.safeParse(json.value);
  if (!parsed.success)
    return invalidAudit(input.id, [...problems, ...problemsFromZod(input.audit.file, parsed.error)]);
  if (problems.length > 0) return invalidAudit(input.id, problems);
  const audit = parsed.data;
  const job: ScanJob = {
    task: input.id,
    audit,
    artefact: {
      file: input.artefact.file,
      placedAt: input.artefact.placedAt,
      text: input.artefact.text,
      canary: input.artefact.canary,
    },
  };
  const rules = compileRules(audit, job.artefact);
  const targets: ScanTarget[] = [
    { file: input.instruction.file, content: { bytes: input.instruction.bytes } },
    ...input.environment,
  ];
  const scanned = await scanFiles(job, rules, targets);
  const findings = scanned.findings.flat();
  findings.push(...coverageFindings(input, audit, rules));
  const auditText = input.audit.text;
  findings.push(
    ...applyAllowlist(input.id, findings, audit.allowlist, {
      file: input.audit.file,
      text: auditText,
      locate: textLocator(auditText),
    }),
  );
  const counts = countFindings(findings);
  return {
    id: input.id,
    status: counts.error > 0 ? "findings" : "clean",
    problems: [],
    findings,
    counts,
    files: 1 + input.environment.length,
    threads: scanned.threads,
  };
}
