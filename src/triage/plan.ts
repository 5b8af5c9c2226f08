// The plan of phase 1, read defensively from a model reply (or a plan file): the JSON object
// {"plan": [{"id", "tokens"}, ...]} in execution order; unknown and duplicate ids are dropped,
// non-positive or non-integer allocations skipped, each with its reason; over budget is flagged.
import { z } from "zod";

/** Replies longer than this are not read as plans (they are attacker-controlled text). */
export const MAX_PLAN_CHARS = 1_000_000;

export const PlanEntry = z.object({ id: z.string(), tokens: z.unknown() });
export const PlanFile = z.object({ plan: z.array(z.unknown()) });

export interface PlanStep {
  id: string;
  tokens: number;
}

export interface DroppedEntry {
  /** Position in the plan array as written (0-based). */
  index: number;
  id: string | null;
  reason: "unknown id" | "duplicate id" | "non-positive or non-integer tokens" | "not an {id, tokens} object";
}

export type ParsedPlan =
  | { ok: true; steps: PlanStep[]; dropped: DroppedEntry[]; allocated: number; compliant: boolean }
  | { ok: false; reason: string };

/** The JSON value a reply carries: the whole text, else a fenced block, else the outermost {...}. */
function jsonIn(text: string): unknown {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) candidates.push(fenced[1]!.trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

/** Reads a plan from `text` against the pool's ids and the budget. */
export function parsePlan(text: string, knownIds: ReadonlySet<string>, budget: number): ParsedPlan {
  if (text.length > MAX_PLAN_CHARS)
    return { ok: false, reason: `the reply is over ${MAX_PLAN_CHARS} characters` };
  const value = jsonIn(text);
  if (value === undefined) return { ok: false, reason: "no JSON object in the reply" };
  const file = PlanFile.safeParse(value);
  if (!file.success) return { ok: false, reason: 'the JSON is not an object with a "plan" array' };
  const steps: PlanStep[] = [];
  const dropped: DroppedEntry[] = [];
  const seen = new Set<string>();
  const rejection = (id: string, tokens: unknown): DroppedEntry["reason"] | null => {
    if (!knownIds.has(id)) return "unknown id";
    if (seen.has(id)) return "duplicate id";
    if (typeof tokens !== "number" || !Number.isSafeInteger(tokens) || tokens <= 0)
      return "non-positive or non-integer tokens";
    return null;
  };
  for (const [index, raw] of file.data.plan.entries()) {
    const entry = PlanEntry.safeParse(raw);
    if (!entry.success) {
      dropped.push({ index, id: null, reason: "not an {id, tokens} object" });
      continue;
    }
    const { id, tokens } = entry.data;
    const reason = rejection(id, tokens);
    if (reason) {
      dropped.push({ index, id, reason });
      continue;
    }
    seen.add(id);
    steps.push({ id, tokens: tokens as number });
  }
  const allocated = steps.reduce((sum, s) => sum + s.tokens, 0);
  return { ok: true, steps, dropped, allocated, compliant: allocated <= budget };
}
