// Failure attribution: did a failed output follow the default conventions, a perturbed variant, or none?

import type { Attribution, Evidence } from "../record/index.ts";
import { agreement } from "./compare.ts";
import type { ParsedOutput } from "./parse.ts";
import type { ExpectedOutputs } from "./reference.ts";

/** A candidate is credited when the output agrees with it on at least this share of its distinguishing values. */
export const ATTRIBUTION_THRESHOLD = 0.5;

export interface Candidate {
  label: Exclude<Attribution, "format" | "other">;
  expected: ExpectedOutputs;
}

/** Evidence from rubric criteria (text outputs judged by their rubric): per candidate label. */
export type RubricEvidence = ReadonlyMap<string, { discriminating: number; agreeing: number }>;

export interface AttributionResult {
  attribution: Attribution;
  /** Per candidate with at least one distinguishing value: the share of those the output agrees with. */
  agreement: Record<string, number>;
  /** Per candidate: its distinguishing values and how many of them the output agrees with. */
  evidence: Evidence;
}

/**
 * For each candidate, the values where its answer differs from the artefact's answer are the evidence;
 * the share of them on which the output matches the candidate is its agreement. The highest agreement
 * at or above ATTRIBUTION_THRESHOLD wins (ties go to the earlier candidate: default, then variants in
 * declaration order); without one the failure is `other`. Rubric-only text outputs carry no values:
 * their evidence is the criteria they fail (`rubric`, see rubricEvidence in verify.ts).
 */
export function attribute(
  reference: ExpectedOutputs,
  candidates: readonly Candidate[],
  actual: ReadonlyMap<string, ParsedOutput>,
  rubric: RubricEvidence = new Map(),
): AttributionResult {
  const evidence: Evidence = {};
  for (const candidate of candidates) {
    let discriminating = rubric.get(candidate.label)?.discriminating ?? 0;
    let agreeing = rubric.get(candidate.label)?.agreeing ?? 0;
    for (const [outputPath, ref] of reference) {
      const cand = candidate.expected.get(outputPath)?.table;
      const out = actual.get(outputPath)?.table;
      if (!ref.table || !cand || !out) continue;
      const a = agreement(ref.table, cand, out);
      discriminating += a.discriminating;
      agreeing += a.agreeing;
    }
    evidence[candidate.label] = { discriminating, agreeing };
  }
  return { ...attributeFrom(evidence), evidence };
}

/**
 * The attribution of per-candidate evidence (in candidate order): the highest share at or above the
 * threshold, ties to the earlier candidate; `other` without one. Candidates without evidence get no share.
 */
export function attributeFrom(evidence: Evidence): Omit<AttributionResult, "evidence"> {
  const shares: Record<string, number> = {};
  let best: { label: string; share: number } | undefined;
  for (const [label, { discriminating, agreeing }] of Object.entries(evidence)) {
    if (discriminating === 0) continue;
    const share = agreeing / discriminating;
    shares[label] = share;
    if (share >= ATTRIBUTION_THRESHOLD && (!best || share > best.share)) best = { label, share };
  }
  return { attribution: (best?.label as Candidate["label"] | undefined) ?? "other", agreement: shares };
}
