// Problems found while loading a task: path-precise messages from zod issues and JSON syntax errors.
import { createRequire } from "node:module";
import type { z } from "zod";
import { fieldPath } from "../common/index.ts";

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

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") {
    const received = /received (\w+)/.exec(issue.message)?.[1];
    if (received === "undefined") return `required field missing (expected ${issue.expected})`;
    return `expected ${issue.expected}, got ${received ?? "another type"}`;
  }
  if (issue.code === "unrecognized_keys") return `unknown field(s): ${issue.keys.join(", ")}`;
  return issue.message.replace(/^Invalid input: /, "");
}

/** Problems from a zod error, classic or zod/mini (both are core errors). */
export function problemsFromZod(file: string, error: z.core.$ZodError): Problem[] {
  return error.issues.map((issue) => ({
    severity: "error" as const,
    file,
    field: fieldPath(issue.path),
    message: issueMessage(issue),
  }));
}

/**
 * Parse JSON text; a syntax error becomes a problem with line and column. JSON.parse does the work (it is
 * fast); only when it fails is the text parsed again by jsonc-parser in strict JSON mode, which names the
 * offset of every error (Node's own message carries no position for some of them, e.g. a bad literal or
 * the end of the input). jsonc-parser is loaded on that path only, so start-up does not pay for it.
 */
export function parseJsonText(
  file: string,
  text: string,
): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const located = locateJsonError(text) ?? nodeJsonError(text, (err as Error).message);
    return {
      ok: false,
      problem: {
        severity: "error",
        file,
        field: located ? lineAndColumn(text, located.offset) : undefined,
        message: `invalid JSON: ${located?.message ?? (err as Error).message}`,
      },
    };
  }
}

/** jsonc-parser, loaded when first needed; null where it is not installed (an exported verifier bundle). */
function jsoncParser(): typeof import("jsonc-parser") | null {
  try {
    return createRequire(import.meta.url)("jsonc-parser");
  } catch {
    return null;
  }
}

/**
 * The first syntax error jsonc-parser finds, e.g. `ValueExpected, found "}"`; undefined when it
 * finds none or is not installed (then Node's message is used).
 */
function locateJsonError(text: string): { offset: number; message: string } | undefined {
  const jsonc = jsoncParser();
  if (!jsonc) return undefined;
  const errors: import("jsonc-parser").ParseError[] = [];
  try {
    jsonc.visit(
      text,
      { onError: (error, offset, length) => errors.push({ error, offset, length }) },
      {
        disallowComments: true,
        allowTrailingComma: false,
        allowEmptyContent: false,
      },
    );
  } catch {
    return undefined; // nesting too deep for its recursive parser: fall back to Node's message
  }
  const first = errors[0];
  if (!first) return undefined;
  const found =
    first.offset >= text.length
      ? "the end of the file"
      : JSON.stringify(text.slice(first.offset, first.offset + Math.min(Math.max(first.length, 1), 20)));
  return { offset: first.offset, message: `${jsonc.printParseErrorCode(first.error)}, found ${found}` };
}

/** Node's message, located when it carries `position N` or is about the end of the input. */
function nodeJsonError(text: string, message: string): { offset: number; message: string } | undefined {
  if (/end of JSON input/.test(message)) return { offset: text.length, message };
  const position = Number(/position (\d+)/.exec(message)?.[1]);
  return Number.isFinite(position) ? { offset: Math.min(position, text.length), message } : undefined;
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
