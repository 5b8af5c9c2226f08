// One task's leak audit: parse the audit file, compile the rules, scan the instruction and every
// environment file (names included), check coverage of the artefact's numbers, apply the allowlist.
import { type Problem, parseJsonText, problemsFromZod } from "../task/index.ts";
import { applyAllowlist } from "./allowlist.ts";
import { type AuditDocument, textLocator } from "./document.ts";
import { contentDocuments, fileNameDocument, formatOf } from "./extract.ts";
import { type Finding, findingsFromHits, fingerprint, tableFindings } from "./findings.ts";
import type { AuditInput } from "./input.ts";
import { normalise } from "./normalise.ts";
import { type NumberLiteral, scanNumbers } from "./numbers.ts";
import { artefactProse, compileRules, type RuleSet } from "./rules.ts";
import { type Hit, scanDocument } from "./scan.ts";
import { AuditFile } from "./schema.ts";

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
  };
}

function isTrivial(lit: NumberLiteral): boolean {
  const v = lit.value;
  return (Number.isInteger(v) && v >= 0 && v <= 10) || v === 100 || v === 1000;
}

/** Numbers in the artefact that no item declares and ignoreNumbers does not list: one warning per value. */
function coverageFindings(input: AuditInput, audit: AuditFile, rules: RuleSet): Finding[] {
  const prose = artefactProse(input.artefact.text);
  const view = normalise(prose);
  const locate = textLocator(prose, view.map);
  const seen = new Set<number>();
  const out: Finding[] = [];
  scanNumbers(view.text, (lit) => {
    if (isTrivial(lit) || rules.forms.covers(lit)) return;
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

async function scanFile(
  task: string,
  rules: RuleSet,
  file: string,
  bytes: Buffer,
  name: string | undefined,
): Promise<Finding[]> {
  const docs: AuditDocument[] = name === undefined ? [] : [fileNameDocument(file, name)];
  const findings: Finding[] = [];
  if (formatOf(file, bytes) === "binary") {
    findings.push({
      rule: "unreadable-file",
      severity: "warning",
      task,
      file,
      location: {},
      via: [],
      message: "binary content is not audited (only its name is); convert it to a text format or xlsx",
      fingerprint: fingerprint(["unreadable-file", file, "binary"]),
    });
  }
  try {
    docs.push(...(await contentDocuments(file, bytes)));
  } catch (err) {
    findings.push({
      rule: "unreadable-file",
      severity: "error",
      task,
      file,
      location: {},
      via: [],
      message: `${(err as Error).message}; an unreadable file cannot be shown to be free of leaks`,
      fingerprint: fingerprint(["unreadable-file", file, "unreadable"]),
    });
  }
  const tableHits: Array<{ doc: AuditDocument; hit: Hit }> = [];
  for (const doc of docs) {
    const hits = scanDocument(doc, rules);
    for (const hit of hits) if (rules.items[hit.item]!.rule === "alias-table") tableHits.push({ doc, hit });
    findings.push(...findingsFromHits(task, doc, rules, hits));
  }
  findings.push(...tableFindings(task, file, rules, tableHits));
  return findings;
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
  const rules = compileRules(audit, {
    placedAt: input.artefact.placedAt,
    text: input.artefact.text,
    canary: input.artefact.canary,
  });

  const findings: Finding[] = [];
  findings.push(
    ...(await scanFile(input.id, rules, input.instruction.file, input.instruction.bytes, undefined)),
  );
  for (const env of input.environment) {
    findings.push(...(await scanFile(input.id, rules, env.file, env.bytes, env.name)));
  }
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
  };
}
