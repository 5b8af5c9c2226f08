// The artefact-numbers check: every number the artefact states (12%, 1,200, twelve percent; the
// trivially common ones aside) sits in a convention section, is held by a convention of the
// verifier (in any of its forms: 0.12 as 12%, 1.12, 0.88) or is listed as not gated in the audit
// file's ignoreNumbers. One that is none of these is a convention the artefact states but nothing
// gates: a warning naming its line (the check does not fail; the curator marks it and gives it to
// the verifier, or lists it as not gated).
import { readFileSync } from "node:fs";
import path from "node:path";
import { AuditFile, statedNumbers } from "../audit/index.ts";
import { relativeToProject } from "../project.ts";
import { conventionSections } from "../task/index.ts";
import type { CheckStep } from "./types.ts";

const SHOWN = 5;

/** Every number leaf of a convention set (nested objects and arrays included). */
function numberLeaves(value: unknown): number[] {
  if (typeof value === "number" && Number.isFinite(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(numberLeaves);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(numberLeaves);
  return [];
}

/** ignoreNumbers of the audit file; none when it does not parse (the leak-audit step reports that). */
function ignoredNumbers(file: string): number[] {
  try {
    const parsed = AuditFile.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data.ignoreNumbers.map((n) => n.value) : [];
  } catch {
    return [];
  }
}

export const statedNumberStep: CheckStep = {
  id: "artefact-numbers",
  needs: ["task", "verifier"],
  async run(context) {
    const task = context.task!;
    const text = task.artefact.bytes.toString("utf8");
    const marked = new Set<number>();
    for (const s of conventionSections(text).sections) {
      for (let line = s.startLine; line <= s.endLine; line++) marked.add(line);
    }
    const conventions = numberLeaves(context.verifier!.verifier.conventions.artefact);
    const ignored = ignoredNumbers(task.auditPath);
    const numbers = statedNumbers(text, [...conventions, ...ignored]);
    const loose = numbers.filter((n) => !marked.has(n.line) && !n.held);
    const where = relativeToProject(context.paths, task.artefact.absPath);
    const verifier = path.basename(context.verifier!.file);
    if (loose.length === 0) {
      return [
        {
          status: "pass",
          detail: `each of the artefact's ${numbers.length} number(s) is in a convention section, held by a convention of ${verifier} or listed as not gated`,
        },
      ];
    }
    const named = loose.slice(0, SHOWN).map((n) => `${where}:${n.line}:${n.column}`);
    const more = loose.length > SHOWN ? ` and ${loose.length - SHOWN} more` : "";
    return [
      {
        status: "warning",
        detail: `${loose.length} number(s) of the artefact in no convention section and held by no convention of ${verifier}: ${named.join(", ")}${more}; a convention nothing gates: mark its section and give it to the verifier, or list it in ${relativeToProject(context.paths, task.auditPath)} ignoreNumbers with a reason`,
      },
    ];
  },
};
