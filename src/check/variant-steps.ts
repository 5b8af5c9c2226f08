// The oracle in the real sandbox under every variant of the artefact: the task's solution/ reads the
// variant placed at the artefact path, so a perturbed variant must yield that variant's answer
// (failing, attributed to it) and a compressed variant must pass. One trial per variant.
import { isDeepStrictEqual } from "node:util";
import { outcomeOf, type TrialRecord } from "../record/index.ts";
import { verifyWith } from "../verify/index.ts";
import { isRecord } from "./answer-diff.ts";
import { recordPlace, seconds } from "./sandbox-steps.ts";
import { outputsOf, withArtefactConventions } from "./trial-outputs.ts";
import type { CheckContext, CheckStep, StepOutcome } from "./types.ts";
import { failureText } from "./verdict-text.ts";
import { deferredToJudge, failsAs } from "./verifier-steps.ts";

export const oracleVariantStep: CheckStep = {
  id: "oracle:variants",
  needs: ["task", "verifier"],
  trials: true,
  async run(context) {
    const results: StepOutcome[] = [];
    for (const variant of context.task!.variants) {
      const id = `oracle:variant:${variant.name}`;
      if (variant.kind === "other") {
        results.push({ id, status: "skipped", detail: "variants of kind other carry no expectation" });
        continue;
      }
      if (!context.sandbox) {
        results.push({ id, status: "unavailable", detail: "not run (--no-sandbox)" });
        continue;
      }
      const record = await context.sandbox.trial(context, `variant:${variant.name}`, "oracle");
      if (typeof record === "string") {
        results.push({ id, status: "fail", detail: record });
        continue;
      }
      const where = recordPlace(context, record);
      if (outcomeOf(record) === "infra") {
        results.push({
          id,
          status: "fail",
          detail: `infrastructure error ${record.error?.kind}: ${record.error?.message} (${where})`,
        });
        continue;
      }
      const { verdict } = record;
      if (record.error || verdict.attribution === "format") {
        // Whatever the output type: an oracle that crashes, or writes nothing usable, under a
        // variant has not followed it (a rubric-judged text would otherwise "fail as expected").
        const why = record.error ? `${record.error.kind}: ${record.error.message}` : failureText(verdict);
        results.push({
          id,
          status: "fail",
          detail: `${variant.kind}: the oracle did not run through under this variant (${why}); it must read the variant and write its answer (${where})`,
        });
        continue;
      }
      const perturbed = failsAs(verdict, `perturbed-convention:${variant.name}`);
      const ok = variant.kind === "compressed" ? verdict.status === "pass" : perturbed.ok;
      const deferred =
        ok || variant.kind === "compressed"
          ? null
          : deferredToJudge(
              verdict,
              `perturbed-convention:${variant.name}`,
              `${variant.kind}: the oracle's answer`,
            );
      if (deferred) {
        results.push({ id, ...deferred, detail: `${deferred.detail} (${seconds(record)})` });
        continue;
      }
      const seen =
        verdict.status === "pass"
          ? "passes"
          : `fails${verdict.attribution ? `, attributed to ${verdict.attribution}` : ""}`;
      if (ok) {
        results.push({
          id,
          status: "pass",
          detail: `${variant.kind}: the oracle ${seen} in ${seconds(record)}`,
        });
        continue;
      }
      const must = variant.kind === "compressed" ? "must pass" : perturbed.expected;
      const named = variant.kind === "perturbed" ? disagreeing(context, variant.name, record) : "";
      const why = verdict.status === "pass" ? "" : ` (${failureText(verdict)})`;
      results.push({
        id,
        status: "fail",
        detail: `${variant.kind}: the oracle ${seen}${why}, ${must}${named} (${where})`,
      });
    }
    return results;
  },
};

/**
 * When the oracle's answer under a perturbed variant is not the verifier's: the conventions on which
 * the variant's text and the verifier's perturbed set disagree. For each convention the set changes,
 * the answer with that one put back to the artefact's value is tried; the ones the oracle's answer
 * then matches are named (the text still states, or the oracle still reads, the artefact's value).
 */
function disagreeing(context: CheckContext, name: string, record: TrialRecord): string {
  const { artefact, variants } = context.verifier!.verifier.conventions;
  const perturbed = variants[name];
  if (!isRecord(artefact) || !isRecord(perturbed)) return "";
  const outputs = outputsOf(context, record);
  const named = Object.keys(perturbed).filter((key) => {
    if (isDeepStrictEqual(perturbed[key], artefact[key])) return false;
    const mixed = { ...perturbed, [key]: artefact[key] };
    const task = {
      ...context.task!,
      digests: { ...context.task!.digests, task: `${context.task!.digests.task}#${name}-${key}` },
    };
    try {
      return verifyWith(task, withArtefactConventions(context.verifier!, mixed), outputs).status === "pass";
    } catch {
      return false;
    }
  });
  return named.length > 0
    ? `; the oracle's answer is the verifier's with ${named.map((n) => `"${n}"`).join(", ")} at the artefact's value: the variant's text still states it, or the oracle does not read the placed artefact`
    : "";
}
