// Suppression with justification: allowlist entries match findings by fingerprint; entries without a
// reason are errors, expired or unused entries are warnings, and suppressed findings stay in the report.
import type { AuditDocument } from "./document.ts";
import type { Finding } from "./findings.ts";
import type { AllowlistEntry } from "./schema.ts";

export function applyAllowlist(
  task: string,
  findings: Finding[],
  entries: readonly AllowlistEntry[],
  auditDoc: Pick<AuditDocument, "file" | "text" | "locate">,
  today: string = new Date().toISOString().slice(0, 10),
): Finding[] {
  const out: Finding[] = [];
  const active = new Map<string, { entry: AllowlistEntry; index: number; used: boolean }>();
  const where = (index: number, entry: AllowlistEntry) => {
    const at = auditDoc.text.indexOf(entry.fingerprint);
    const location = at >= 0 ? auditDoc.locate(at, at + entry.fingerprint.length) : {};
    return { ...location, part: `allowlist[${index}]` };
  };
  entries.forEach((entry, index) => {
    const base = {
      task,
      file: auditDoc.file,
      location: where(index, entry),
      via: [],
      fingerprint: entry.fingerprint,
    };
    if (!entry.reason) {
      out.push({
        ...base,
        rule: "allowlist-no-reason",
        severity: "error",
        message: `allowlist[${index}].reason: an allowlist entry needs a reason; it suppresses nothing until it has one`,
      });
      return;
    }
    if (entry.expires !== undefined && entry.expires <= today) {
      out.push({
        ...base,
        rule: "allowlist-expired",
        severity: "warning",
        message: `allowlist[${index}].expires: the entry expired on ${entry.expires} and suppresses nothing`,
      });
      return;
    }
    active.set(entry.fingerprint, { entry, index, used: false });
  });
  for (const finding of findings) {
    const match = active.get(finding.fingerprint);
    if (!match) continue;
    match.used = true;
    finding.suppressed = {
      reason: match.entry.reason!,
      ...(match.entry.expires ? { expires: match.entry.expires } : {}),
    };
  }
  for (const { entry, index, used } of active.values()) {
    if (used) continue;
    out.push({
      task,
      file: auditDoc.file,
      location: where(index, entry),
      via: [],
      fingerprint: entry.fingerprint,
      rule: "allowlist-unused",
      severity: "warning",
      message: `allowlist[${index}]: the entry matches no finding any more; remove it`,
    });
  }
  return out;
}
