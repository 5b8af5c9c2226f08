// Test support: is a document a valid ATIF trajectory as Harbor's reader sees it? The JSON Schema
// generated from the ATIF models in test/fixtures/atif (their licence and source in its README),
// then the models' own validators, which a JSON Schema cannot state, checked as they state them:
// step ids 1, 2, 3, ...; every observation result's source_call_id names a tool call of its step,
// and no step repeats a tool_call_id; model_name, reasoning_effort, reasoning_content, tool_calls
// and metrics only on agent steps; timestamps ISO 8601. Plus Harbor's two rules the NAT copy
// relaxes: at least one step, and every step has a message.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

const SCHEMA = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "fixtures",
  "atif",
  "trajectory.schema.json",
);
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(
  JSON.parse(readFileSync(SCHEMA, "utf8")),
);

const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"];

interface Step {
  step_id: number;
  source: string;
  message?: unknown;
  timestamp?: string | null;
  tool_calls?: Array<{ tool_call_id: string }> | null;
  observation?: { results: Array<{ source_call_id?: string | null }> } | null;
  [field: string]: unknown;
}

function stepProblems(step: Step, index: number): string[] {
  const out: string[] = [];
  const at = `steps[${index}]`;
  if (step.step_id !== index + 1) out.push(`${at}.step_id: expected ${index + 1}, got ${step.step_id}`);
  if (step.message === undefined) out.push(`${at}.message: required (Harbor)`);
  if (step.timestamp != null && Number.isNaN(Date.parse(step.timestamp)))
    out.push(`${at}.timestamp: not ISO 8601: ${step.timestamp}`);
  if (step.source !== "agent") {
    for (const field of AGENT_ONLY) if (step[field] != null) out.push(`${at}.${field}: only on agent steps`);
  }
  const ids = (step.tool_calls ?? []).map((c) => c.tool_call_id);
  if (new Set(ids).size !== ids.length) out.push(`${at}.tool_calls: a tool_call_id is repeated`);
  for (const r of step.observation?.results ?? []) {
    if (r.source_call_id != null && !ids.includes(r.source_call_id))
      out.push(
        `${at}.observation: source_call_id ${r.source_call_id} is no tool call of step ${step.step_id}`,
      );
  }
  return out;
}

/** Every reason the document is no valid ATIF trajectory; empty when it is one. */
export function atifProblems(doc: unknown): string[] {
  if (!validate(doc)) return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
  const steps = (doc as { steps: Step[] }).steps;
  if (steps.length === 0) return ["steps: at least one step (Harbor)"];
  return steps.flatMap(stepProblems);
}
