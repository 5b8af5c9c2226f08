// A clause of the retain rule or a control: "the pass rate of a cell is >= t" or "<= t", written
// in kgate.config.json as a short string (">= 0.6", "<= 0.4", "= 0").
import { z } from "zod";

export const Requirement = z.object({
  op: z.enum([">=", "<="]),
  threshold: z.number().min(0).max(1),
});
export type Requirement = z.infer<typeof Requirement>;

const PATTERN = /^\s*(>=|<=|=)\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/;

/** Parses ">= 0.6", "<= 40%", "= 0" (only 0 or 1 may use "="). Returns an error message or the requirement. */
export function parseRequirement(text: string): Requirement | string {
  const m = PATTERN.exec(text);
  if (!m) return `"${text}" is not a requirement: expected ">= t", "<= t" or "= 0" with t between 0 and 1`;
  const value = Number(m[2]) / (m[3] === "%" ? 100 : 1);
  if (!(value >= 0 && value <= 1))
    return `"${text}": the threshold must lie between 0 and 1 (or 0% and 100%)`;
  if (m[1] === "=") {
    if (value === 0) return { op: "<=", threshold: 0 };
    if (value === 1) return { op: ">=", threshold: 1 };
    return `"${text}": "=" is only meaningful for 0 or 1; use ">=" or "<="`;
  }
  return { op: m[1] as ">=" | "<=", threshold: value };
}

/** The requirement as written in config: a string, parsed and checked. */
export const RequirementText = z.string().transform((text, ctx) => {
  const parsed = parseRequirement(text);
  if (typeof parsed === "string") {
    ctx.addIssue({ code: "custom", message: parsed });
    return z.NEVER;
  }
  return parsed;
});

/** True when passes/runs satisfies the requirement (integer arithmetic, no float edge at 3/5 = 0.6). */
export function satisfies(req: Requirement, passes: number, runs: number): boolean {
  const scaled = req.threshold * runs;
  const tolerance = 1e-9 * Math.max(1, runs);
  return req.op === ">=" ? passes >= scaled - tolerance : passes <= scaled + tolerance;
}

/** A threshold at the edge of [0, 1], where the clause can only be met at one extreme count. */
export function isExtreme(req: Requirement): boolean {
  return (req.op === "<=" && req.threshold === 0) || (req.op === ">=" && req.threshold === 1);
}

/** A requirement that every pass rate satisfies (">= 0" or "<= 1"). */
export function isTrivial(req: Requirement): boolean {
  return (req.op === ">=" && req.threshold === 0) || (req.op === "<=" && req.threshold === 1);
}

export function formatRequirement(req: Requirement): string {
  if (isExtreme(req)) return `= ${req.threshold}`;
  return `${req.op} ${req.threshold}`;
}

/** The clause in words: "p(frontier+A) >= 0.6". */
export function clauseText(cell: string, req: Requirement): string {
  return `p(${cell}) ${formatRequirement(req)}`;
}
