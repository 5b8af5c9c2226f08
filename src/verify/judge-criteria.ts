// Judge criteria in the verifier's worker: the judge is called from the host (its keys never enter a
// worker or a container), so here each judge criterion becomes a pending result carrying what the
// judge needs: its text under the artefact's conventions, its text under each candidate set (default,
// perturbed variants) that differs (to attribute a failure), and the outputs it reads.
import type { CriterionResult } from "../record/index.ts";
import type { JudgeCriterion } from "./contract.ts";
import type { LoadedVerifier } from "./load.ts";
import { type ExpectedOutputs, VerifierError } from "./reference.ts";
import { throwSite } from "./throw-site.ts";

/** The candidates' answers a failed judge criterion is judged against (default, then perturbed variants). */
export interface JudgeCandidate {
  label: string;
  expected: ExpectedOutputs;
}

/** The criterion's text for one convention set's answers; a throw or a blank text is the verifier's bug. */
export function criterionText(
  loaded: LoadedVerifier,
  criterion: JudgeCriterion,
  outputPath: string,
  expected: ExpectedOutputs,
): string {
  if (typeof criterion.criterion === "string") return criterion.criterion;
  const answers = Object.fromEntries([...expected].map(([path, parsed]) => [path, parsed.value]));
  let text: unknown;
  try {
    text = criterion.criterion(expected.get(outputPath)?.value, answers);
  } catch (err) {
    const site = throwSite(err, loaded.file) ?? loaded.file;
    throw new VerifierError(
      `${site}: the judge criterion "${criterion.name}" of ${outputPath} threw: ${(err as Error).message}`,
      { cause: err },
    );
  }
  if (typeof text !== "string" || text.trim() === "") {
    throw new VerifierError(
      `${loaded.file}: the judge criterion "${criterion.name}" of ${outputPath} must give a non-empty text`,
    );
  }
  return text;
}

/** What one judge criterion becomes: pending when its outputs are usable, else failed as not evaluated. */
export function judgeCriterionResult(o: {
  loaded: LoadedVerifier;
  name: string;
  criterion: JudgeCriterion;
  outputPath: string;
  reference: ExpectedOutputs;
  candidates: () => readonly JudgeCandidate[];
  /** Why an output it reads is unusable (format), or null. */
  unusable: string | null;
}): CriterionResult {
  const { criterion } = o;
  const text = criterionText(o.loaded, criterion, o.outputPath, o.reference);
  const judge = { config: criterion.judge, criterion: text, reads: criterion.reads ?? [o.outputPath] };
  const weight = criterion.weight ?? 1;
  if (o.unusable !== null) {
    const detail = `not evaluated: ${o.unusable}`;
    return { name: o.name, passed: false, detail, weight, judge: { ...judge, verdict: "not-run" } };
  }
  const candidates: Record<string, string> = {};
  for (const candidate of o.candidates()) {
    const other = criterionText(o.loaded, criterion, o.outputPath, candidate.expected);
    if (other !== text) candidates[candidate.label] = other;
  }
  return {
    name: o.name,
    passed: false,
    detail: "not judged yet",
    weight,
    judge: { ...judge, verdict: "pending", candidates },
  };
}
