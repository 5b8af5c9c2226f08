// verifyTrial: a trial's outputs against the reference answer, rubric criteria, verdict and attribution.

import type { CriterionResult, Verdict } from "../record/index.ts";
import type { LoadedTask, OutputSpec } from "../task/index.ts";
import { attribute, type Candidate, type RubricEvidence } from "./attribution.ts";
import { compareTables, describeFirstDifference } from "./compare.ts";
import { type CodeCriterion, isJudgeCriterion, type OutputForVerification } from "./contract.ts";
import { capDiff, tableDiff, textDiff } from "./diff.ts";
import { judgeCriterionResult } from "./judge-criteria.ts";
import { clip } from "./leaf.ts";
import { type LoadedVerifier, loadVerifier } from "./load.ts";
import { type ParsedOutput, parseActual } from "./parse.ts";
import { type ConventionSet, expectedOutputs, VerifierError } from "./reference.ts";
import { failedReason, rewardAndScore, runCriterion } from "./rubric.ts";
import { leafAt } from "./table.ts";

/** Characters kept of one output's format reason (a garbage header could otherwise fill the record). */
const REASON_CAP = 500;

/**
 * Verifies one trial's outputs. Malformed outputs give a failed verdict attributed to `format`; a
 * verifier that cannot be loaded, or whose reference answer fails (solve throws, breaks the output
 * contract), gives an `unverified` verdict with the reason: the task's bug, whatever the output,
 * which `kgate check` reports. Anything else thrown while judging these outputs is thrown (the
 * caller runs verification in a killable worker and records it as the verifier's failure on them).
 * `reference`: the convention set whose answer is right (the artefact's, except for an exported
 * training row that places a perturbed variant: its answer is the variant's).
 */
export async function verifyTrial(
  task: LoadedTask,
  outputs: readonly OutputForVerification[],
  reference: ConventionSet = "artefact",
): Promise<Verdict> {
  let verifier: LoadedVerifier;
  try {
    verifier = await loadVerifier(task);
  } catch (err) {
    return {
      status: "unverified",
      reward: 0,
      score: 0,
      criteria: [],
      attribution: null,
      reason: (err as Error).message,
    };
  }
  try {
    return verifyWith(task, verifier, outputs, reference);
  } catch (err) {
    if (!(err instanceof VerifierError)) throw err;
    return {
      status: "unverified",
      reward: 0,
      score: 0,
      criteria: [],
      attribution: null,
      reason: err.message,
    };
  }
}

/**
 * The reference comparison of one output, as a criterion named after the output path (its diff, when
 * values differ, goes to `diffs`). Undefined for a text output judged by its rubric.
 */
function referenceCriterion(
  output: OutputSpec,
  expected: ParsedOutput,
  actual: ParsedOutput,
  diffs: string[],
) {
  const path = output.path;
  if (!expected.table || !actual.table) return undefined;
  const comparison = compareTables(expected.table, actual.table);
  if (comparison.differing === 0) {
    return { name: path, passed: true, detail: `all ${comparison.compared} value(s) match the reference` };
  }
  const first = describeFirstDifference(expected.table, actual.table, comparison.sample[0]!);
  const text = leafAt(expected.table, "text", 0);
  const got = leafAt(actual.table, "text", 0);
  diffs.push(
    output.format === "text" && typeof text === "string" && typeof got === "string"
      ? textDiff(path, text, got)
      : tableDiff(path, expected.table, actual.table, comparison),
  );
  return {
    name: path,
    passed: false,
    detail: `${comparison.differing} of ${comparison.compared} value(s) differ, in ${comparison.differingRows} row(s); first: ${first}`,
  };
}

/** Each declared output parsed, or the reason it is unusable (format). */
function parseOutputs(
  task: LoadedTask,
  loaded: LoadedVerifier,
  outputs: readonly OutputForVerification[],
): Map<string, { ok: true; value: ParsedOutput } | { ok: false; reason: string }> {
  const byPath = new Map(outputs.map((o) => [o.path, o]));
  const parsed = new Map<string, { ok: true; value: ParsedOutput } | { ok: false; reason: string }>();
  for (const output of task.spec.outputs) {
    const result = parseActual(output, byPath.get(output.path), loaded.rubricOf(output.path) !== undefined);
    parsed.set(
      output.path,
      result.ok ? result : { ok: false, reason: clip(`${output.path} ${result.reason}`, REASON_CAP) },
    );
  }
  return parsed;
}

/** Synchronous core of verifyTrial; throws VerifierError when the verifier misbehaves. */
export function verifyWith(
  task: LoadedTask,
  loaded: LoadedVerifier,
  outputs: readonly OutputForVerification[],
  referenceSet: ConventionSet = "artefact",
): Verdict {
  const reference = expectedOutputs(task, loaded, referenceSet);
  const parsed = parseOutputs(task, loaded, outputs);
  const criteria: CriterionResult[] = [];
  const formatReasons: string[] = [];
  const diffs: string[] = [];
  const actual = new Map<string, ParsedOutput>();
  let candidateList: Candidate[] | undefined;
  const candidatesOnce = () => {
    candidateList ??= candidates(task, loaded);
    return candidateList;
  };
  const unusable = (paths: readonly string[]) =>
    paths.map((p) => parsed.get(p)).find((r) => r?.ok === false)?.reason ?? null;

  for (const output of task.spec.outputs) {
    const rubric = loaded.rubricOf(output.path);
    const expected = reference.get(output.path)!;
    const result = parsed.get(output.path)!;
    if (!result.ok) {
      formatReasons.push(result.reason);
      if (expected.table && !rubric?.judgesAlone)
        criteria.push({ name: output.path, passed: false, detail: result.reason });
    } else {
      actual.set(output.path, result.value);
      // A rubric that judges alone leaves the comparison only its diff (and attribution, below).
      const compared = referenceCriterion(output, expected, result.value, diffs);
      if (compared && !rubric?.judgesAlone) criteria.push(compared);
    }
    for (const c of rubric?.criteria ?? []) {
      const name = `${output.path}: ${c.name}`;
      if (isJudgeCriterion(c)) {
        criteria.push(
          judgeCriterionResult({
            loaded,
            name,
            criterion: c,
            outputPath: output.path,
            reference,
            candidates: candidatesOnce,
            unusable: unusable(c.reads ?? [output.path]),
          }),
        );
      } else if (!result.ok) {
        criteria.push({
          name,
          passed: false,
          detail: `not evaluated: ${result.reason}`,
          weight: c.weight ?? 1,
        });
      } else {
        criteria.push(runCriterion(name, c, result.value.value, expected.value, loaded.file));
      }
    }
  }

  const { reward, score } = rewardAndScore(criteria);
  const diff = capDiff(diffs);
  if (reward === 1) return { status: "pass", reward, score, criteria, attribution: null };
  if (formatReasons.length > 0) {
    return {
      status: "fail",
      reward,
      score,
      criteria,
      attribution: "format",
      reason: formatReasons.join("; "),
      ...(diff ? { diff } : {}),
    };
  }
  const others = candidatesOnce();
  const rubric = rubricEvidence(task, loaded, actual, criteria, others);
  const { attribution, agreement, evidence } = attribute(reference, others, actual, rubric);
  const pending = criteria.some((c) => c.judge?.verdict === "pending");
  return {
    status: "fail",
    reward,
    score,
    criteria,
    attribution,
    agreement,
    // the host adds the judges' evidence to these counts once they have answered (judged.ts)
    ...(pending ? { evidence } : {}),
    reason: failedReason(criteria),
    ...(diff ? { diff } : {}),
  };
}

/**
 * The evidence of text outputs judged by their rubric alone: the criteria the deliverable fails
 * against the reference answer, and per candidate how many of those it passes against the
 * candidate's answer (a memo written under the default conventions passes them against the default
 * answer). The analogue of the values a candidate's answer changes.
 */
function rubricEvidence(
  task: LoadedTask,
  loaded: LoadedVerifier,
  actual: ReadonlyMap<string, ParsedOutput>,
  criteria: readonly CriterionResult[],
  others: readonly Candidate[],
): RubricEvidence {
  const evidence = new Map<string, { discriminating: number; agreeing: number }>();
  for (const output of task.spec.outputs) {
    const rubric = loaded.rubricOf(output.path);
    const parsed = actual.get(output.path);
    if (!rubric || output.format !== "text" || !parsed) continue;
    // judge criteria add their evidence on the host, once judged (judged.ts)
    const failed = rubric.criteria.filter(
      (c): c is CodeCriterion =>
        !isJudgeCriterion(c) &&
        criteria.find((r) => r.name === `${output.path}: ${c.name}`)?.passed === false,
    );
    for (const candidate of others) {
      const expected = candidate.expected.get(output.path)?.value;
      const agreeing = failed.filter((c) => runCriterion(c.name, c, parsed.value, expected).passed).length;
      const sum = evidence.get(candidate.label) ?? { discriminating: 0, agreeing: 0 };
      evidence.set(candidate.label, {
        discriminating: sum.discriminating + failed.length,
        agreeing: sum.agreeing + agreeing,
      });
    }
  }
  return evidence;
}

/** The default conventions, then each perturbed variant in declaration order. */
function candidates(task: LoadedTask, loaded: LoadedVerifier): Candidate[] {
  const list: Candidate[] = [
    { label: "default-convention", expected: expectedOutputs(task, loaded, "default") },
  ];
  for (const [name, declaration] of Object.entries(task.spec.artefact.variants)) {
    if (declaration.kind !== "perturbed") continue;
    list.push({
      label: `perturbed-convention:${name}`,
      expected: expectedOutputs(task, loaded, `variant:${name}`),
    });
  }
  return list;
}
