// The oracle in the real sandbox under every variant of the artefact: the task's solution/ reads the
// variant placed at the artefact path, so a perturbed variant must yield that variant's answer
// (failing, attributed to it) and a compressed variant must pass. One trial per variant.
import { outcomeOf } from "../record/index.ts";
import { recordPlace, seconds } from "./sandbox-steps.ts";
import type { CheckStep, StepOutcome } from "./types.ts";
import { failureText } from "./verdict-text.ts";
import { deferredToJudge, failsAs } from "./verifier-steps.ts";

export const oracleVariantStep: CheckStep = {
  id: "oracle:variants",
  needs: ["task", "verifier"],
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
      const why = verdict.status === "pass" ? "" : ` (${failureText(verdict)})`;
      results.push({
        id,
        status: "fail",
        detail: `${variant.kind}: the oracle ${seen}${why}, ${must} (${where})`,
      });
    }
    return results;
  },
};
