// Which scorer an exported row's answers need: the Python module, when every output is compared with
// the reference answer (CSV, text, or JSON whose schema uses only the keywords the module checks as
// zod does), else kgate's own verification in node (rubric criteria are code; other schemas). A
// judge criterion needs a model: such a task has no offline scorer, and rows refuse it.
import type { ProjectPaths } from "../../project.ts";
import { loadValidTask, type OutputSpec } from "../../task/index.ts";
import { isJudgeCriterion, type LoadedVerifier, loadVerifier } from "../../verify/index.ts";

/** The JSON Schema keywords the Python module checks exactly as z.fromJSONSchema does. */
const KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "title",
  "description",
  "$schema",
  "$comment",
]);
const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether a schema stays inside that subset: one type per node, string enums, boolean additionalProperties. */
export function pythonSchema(schema: unknown): boolean {
  if (!isObject(schema) || !Object.keys(schema).every((k) => KEYWORDS.has(k))) return false;
  const { type, properties, required, additionalProperties, items } = schema;
  if (typeof type !== "string" || !TYPES.has(type)) return false;
  if ("enum" in schema) {
    const values = schema.enum;
    if (type !== "string" || !Array.isArray(values) || !values.every((v) => typeof v === "string"))
      return false;
  }
  if (properties !== undefined && (type !== "object" || !isObject(properties))) return false;
  if (properties !== undefined && !Object.values(properties).every(pythonSchema)) return false;
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === "string")))
    return false;
  if (additionalProperties !== undefined && typeof additionalProperties !== "boolean") return false;
  return items === undefined || (type === "array" && pythonSchema(items));
}

function pythonOutput(output: OutputSpec, loaded: LoadedVerifier): boolean {
  if (loaded.rubricOf(output.path) !== undefined) return false;
  return output.format !== "json" || pythonSchema(output.schema);
}

export function scorerOf(
  outputs: readonly OutputSpec[],
  loaded: LoadedVerifier,
): "python" | "node" | "judge" {
  if (outputs.some((o) => loaded.rubricOf(o.path)?.criteria.some(isJudgeCriterion))) return "judge";
  return outputs.every((o) => pythonOutput(o, loaded)) ? "python" : "node";
}

/**
 * The tasks of `ids` a model grades (judge criteria): rows refuse them. A task that does not load, or
 * whose verifier does not, is not one (its export says why).
 */
export async function judgeGradedIds(paths: ProjectPaths, ids: readonly string[]): Promise<string[]> {
  const judged: string[] = [];
  for (const id of ids) {
    try {
      const task = loadValidTask(paths, id);
      if (scorerOf(task.spec.outputs, await loadVerifier(task)) === "judge") judged.push(id);
    } catch {
      // left to the export, which names the problem
    }
  }
  return judged;
}
