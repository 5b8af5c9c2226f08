// SARIF 2.1.0 output: one run, the rules with their default levels, one result per finding with a
// stable partial fingerprint; suppressed findings carry an external suppression with the reason.
import type { Finding } from "./findings.ts";
import { type AuditReport, RULES } from "./report.ts";
import type { RuleId } from "./rules.ts";

export const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

function result(f: Finding, ruleIndex: number) {
  const l = f.location;
  const region =
    l.line !== undefined
      ? {
          startLine: l.line,
          startColumn: l.column,
          ...(l.endLine !== undefined ? { endLine: l.endLine, endColumn: l.endColumn } : {}),
        }
      : undefined;
  const logical = [l.cell, l.part].filter((x): x is string => Boolean(x));
  return {
    ruleId: f.rule,
    ruleIndex,
    level: f.severity,
    message: { text: f.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: f.file, uriBaseId: "%SRCROOT%" },
          ...(region ? { region } : {}),
        },
        ...(logical.length
          ? { logicalLocations: [{ fullyQualifiedName: logical.join(" "), kind: "element" }] }
          : {}),
      },
    ],
    ...(f.related
      ? {
          relatedLocations: [
            {
              id: 1,
              physicalLocation: {
                artifactLocation: { uri: f.related.file, uriBaseId: "%SRCROOT%" },
                ...(f.related.location.line !== undefined
                  ? { region: { startLine: f.related.location.line, endLine: f.related.location.endLine } }
                  : {}),
              },
            },
          ],
        }
      : {}),
    partialFingerprints: { "kgate/v1": f.fingerprint },
    ...(f.suppressed
      ? { suppressions: [{ kind: "external", status: "accepted", justification: f.suppressed.reason }] }
      : {}),
    properties: {
      task: f.task,
      ...(f.item ? { item: f.item } : {}),
      ...(f.via.length ? { via: f.via } : {}),
      ...(f.count !== undefined ? { count: f.count } : {}),
      ...(f.similarity !== undefined ? { similarity: f.similarity } : {}),
      ...(f.match !== undefined ? { match: f.match } : {}),
    },
  };
}

export function formatSarif(report: AuditReport, version: string): string {
  const ruleIds = Object.keys(RULES) as RuleId[];
  const findings = report.tasks.flatMap((t) => t.findings);
  const log = {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "kgate",
            version,
            rules: ruleIds.map((id) => ({
              id,
              name: RULES[id].name,
              shortDescription: { text: RULES[id].description },
              defaultConfiguration: { level: RULES[id].level },
            })),
          },
        },
        results: findings.map((f) => result(f, ruleIds.indexOf(f.rule))),
        invocations: [
          {
            executionSuccessful: report.invalid === 0,
            toolExecutionNotifications: report.tasks.flatMap((t) =>
              t.problems.map((p) => ({
                level: "error",
                message: { text: `${p.file}${p.field ? `: ${p.field}` : ""}: ${p.message}` },
              })),
            ),
          },
        ],
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
