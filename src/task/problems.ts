// Problems found while loading a task: path-precise messages from zod issues and JSON syntax errors.
import type { z } from "zod";

export type Severity = "error" | "warning";

export interface Problem {
  severity: Severity;
  /** Project-relative file the problem is in, e.g. tasks/foo/task.json. */
  file: string;
  /** Dotted field path inside the file (`limits.timeoutSec`, `outputs[0].path`), or a line reference. */
  field?: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  return p.field ? `${p.file}: ${p.field}: ${p.message}` : `${p.file}: ${p.message}`;
}

export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out || "(root)";
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") {
    const received = /received (\w+)/.exec(issue.message)?.[1];
    if (received === "undefined") return `required field missing (expected ${issue.expected})`;
    return `expected ${issue.expected}, got ${received ?? "another type"}`;
  }
  if (issue.code === "unrecognized_keys") return `unknown field(s): ${issue.keys.join(", ")}`;
  return issue.message.replace(/^Invalid input: /, "");
}

export function problemsFromZod(file: string, error: z.ZodError): Problem[] {
  return error.issues.map((issue) => ({
    severity: "error" as const,
    file,
    field: fieldPath(issue.path),
    message: issueMessage(issue),
  }));
}

/** Parse JSON text; a syntax error becomes a problem with line and column. */
export function parseJsonText(
  file: string,
  text: string,
): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const message = (err as Error).message;
    const position = Number(/position (\d+)/.exec(message)?.[1]);
    let where = "";
    if (Number.isFinite(position)) {
      const before = text.slice(0, position).split("\n");
      where = `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
    }
    return {
      ok: false,
      problem: { severity: "error", file, field: where || undefined, message: `invalid JSON: ${message}` },
    };
  }
}
