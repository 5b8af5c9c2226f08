// Turns an output (the agent's bytes, or a reference solver's value) into a table and the value a
// rubric reads; anything malformed becomes a precise reason, never an exception.
import { z } from "zod";
import {
  formatProblem,
  type JsonOutput,
  type OutputSpec,
  parseJsonText,
  problemsFromZod,
} from "../task/index.ts";
import type { OutputForVerification } from "./contract.ts";
import type { Leaf } from "./leaf.ts";
import {
  type Built,
  type Table,
  tableFromCsv,
  tableFromJson,
  tableFromRows,
  tableFromText,
} from "./table.ts";

export interface ParsedOutput {
  /** What the reference comparison works on; null for a text output judged by rubric only. */
  table: Table | null;
  /** What rubric criteria receive: the text, the typed rows as objects, or the document. */
  value: unknown;
}

/** How many schema problems a reason lists. */
const MAX_SCHEMA_PROBLEMS = 5;
/** Nesting a JSON output may have: the schema check and the flattening recurse once per level. */
export const MAX_JSON_DEPTH = 200;

/** The JSON pointer of a value nested deeper than maxDepth, found without recursion, or null. */
export function tooDeep(document: unknown, maxDepth: number): string | null {
  const stack: Array<[unknown, string, number]> = [[document, "", 0]];
  while (stack.length > 0) {
    const [value, pointer, depth] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= maxDepth) return pointer || "(root)";
    for (const [key, child] of Object.entries(value)) stack.push([child, `${pointer}/${key}`, depth + 1]);
  }
  return null;
}

const schemas = new WeakMap<JsonOutput, z.ZodType>();

function schemaOf(output: JsonOutput): z.ZodType {
  let schema = schemas.get(output);
  if (!schema) {
    schema = z.fromJSONSchema(output.schema as Parameters<typeof z.fromJSONSchema>[0]);
    schemas.set(output, schema);
  }
  return schema;
}

function rowObjects(output: OutputSpec & { format: "csv" }, rows: Leaf[][]): Record<string, Leaf>[] {
  return rows.map((row) => Object.fromEntries(output.columns.map((c, i) => [c.name, row[i]!])));
}

function fromDocument(output: JsonOutput, document: unknown, withValue: boolean): Built<ParsedOutput> {
  const deep = tooDeep(document, MAX_JSON_DEPTH);
  if (deep) return { ok: false, reason: `${deep}: nested deeper than ${MAX_JSON_DEPTH} levels` };
  const valid = schemaOf(output).safeParse(document);
  if (!valid.success) {
    const problems = problemsFromZod(output.path, valid.error).map((p) =>
      formatProblem(p).slice(output.path.length + 2),
    );
    const more =
      problems.length > MAX_SCHEMA_PROBLEMS ? ` (and ${problems.length - MAX_SCHEMA_PROBLEMS} more)` : "";
    return {
      ok: false,
      reason: `does not match the schema: ${problems.slice(0, MAX_SCHEMA_PROBLEMS).join("; ")}${more}`,
    };
  }
  const table = tableFromJson(output, document);
  if (!table.ok) return table;
  return { ok: true, value: { table: table.value, value: withValue ? document : null } };
}

/** Decodes bytes as UTF-8 text (BOM dropped), refusing what is over the cap, empty, or not UTF-8. */
export function decodeOutput(output: OutputSpec, found: OutputForVerification | undefined): Built<string> {
  if (!found || found.status === "missing") {
    return { ok: false, reason: `was not produced${found?.reason ? ` (${found.reason})` : ""}` };
  }
  if (found.status === "rejected")
    return { ok: false, reason: `was rejected: ${found.reason ?? "no reason given"}` };
  const bytes = found.bytes;
  if (!bytes) return { ok: false, reason: "was collected without its bytes" };
  if (bytes.length > output.maxBytes) {
    return { ok: false, reason: `is ${bytes.length} B, over the declared maxBytes of ${output.maxBytes} B` };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: "is not valid UTF-8 text" };
  }
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  if (text.trim().length === 0) return { ok: false, reason: "is empty" };
  return { ok: true, value: text };
}

/** The agent's output. `withValue`: also build what rubric criteria read. */
export function parseActual(
  output: OutputSpec,
  found: OutputForVerification | undefined,
  hasRubric: boolean,
): Built<ParsedOutput> {
  const decoded = decodeOutput(output, found);
  if (!decoded.ok) return decoded;
  const text = decoded.value;
  if (output.format === "text") {
    return { ok: true, value: { table: hasRubric ? null : tableFromText(output, text), value: text } };
  }
  if (output.format === "json") {
    const json = parseJsonText(output.path, text);
    if (!json.ok) return { ok: false, reason: formatProblem(json.problem).slice(output.path.length + 2) };
    return fromDocument(output, json.value, hasRubric);
  }
  const built = tableFromCsv(output, text, hasRubric);
  if (!built.ok) return built;
  return {
    ok: true,
    value: { table: built.value.table, value: hasRubric ? rowObjects(output, built.value.rows) : null },
  };
}

/** A reference solver's answer for one output, held to the same contract as the agent's. */
export function parseExpected(output: OutputSpec, answer: unknown, hasRubric: boolean): Built<ParsedOutput> {
  if (output.format === "text") {
    if (hasRubric) return { ok: true, value: { table: null, value: answer } };
    if (typeof answer !== "string")
      return { ok: false, reason: "expected a string for a text output without rubric" };
    return { ok: true, value: { table: tableFromText(output, answer), value: answer } };
  }
  if (output.format === "json") return fromDocument(output, answer, hasRubric);
  const built = tableFromRows(output, answer, hasRubric);
  if (!built.ok) return built;
  return {
    ok: true,
    value: { table: built.value.table, value: hasRubric ? rowObjects(output, built.value.rows) : null },
  };
}
