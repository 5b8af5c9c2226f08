// The oracle follows the artefact: for each convention no perturbed variant changes, a variant that
// changes that convention alone (derived-variants.ts) is placed at the artefact path and the oracle
// run on it in the sandbox; its outputs must be the verifier's answer under the artefact's
// conventions with that one changed. An oracle that hard-codes the convention fails, by name.

import { createHash } from "node:crypto";
import type { LoadedTask } from "../task/index.ts";
import { type Verdict, verifyWith } from "../verify/index.ts";
import { type DerivedVariant, deriveVariants } from "./derived-variants.ts";
import { recordPlace } from "./sandbox-steps.ts";
import { outputsOf, withArtefactConventions } from "./trial-outputs.ts";
import type { CheckContext, CheckStep, StepOutcome } from "./types.ts";
import { failureText } from "./verdict-text.ts";

/** The task with the derived variant as one more (kind other) variant, and a digest of its own. */
function taskWith(task: LoadedTask, derived: DerivedVariant): LoadedTask {
  const bytes = Buffer.from(derived.text, "utf8");
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const variant = {
    ...task.artefact,
    name: `derived-${derived.convention}`,
    kind: "other" as const,
    bytes,
    sha256,
  };
  return {
    ...task,
    variants: [...task.variants, variant],
    // Reference answers are cached by task digest and set: the derived expectation is another one.
    digests: { ...task.digests, task: `${task.digests.task}#derived-${derived.convention}` },
  };
}

async function follows(context: CheckContext, derived: DerivedVariant): Promise<string | undefined> {
  const task = taskWith(context.task!, derived);
  const record = await context.sandbox!.trial(
    { ...context, task },
    `variant:derived-${derived.convention}`,
    "oracle",
  );
  const change = `"${derived.convention}" (${derived.from} -> ${derived.to})`;
  if (typeof record === "string") return `${change}: ${record}`;
  if (record.error)
    return `${change}: the oracle did not run through (${record.error.kind}: ${record.error.message}; ${recordPlace(context, record)})`;
  let verdict: Verdict;
  try {
    verdict = verifyWith(
      task,
      withArtefactConventions(context.verifier!, derived.conventions),
      outputsOf(context, record),
    );
  } catch (err) {
    return `${change}: ${(err as Error).message}`;
  }
  if (verdict.status === "pass") return undefined;
  return `${change}: the oracle's answer is not the verifier's for that convention (${failureText(verdict)}; ${recordPlace(context, record)})`;
}

export const oracleFollowsStep: CheckStep = {
  id: "oracle:conventions",
  needs: ["task", "verifier"],
  trials: true,
  async run(context): Promise<StepOutcome[]> {
    const { derived, underived } = deriveVariants(context.task!, context.verifier!);
    const note =
      underived.length > 0
        ? `; not derivable (no perturbed variant changes it, and it is no number in its marked section): ${underived.join(", ")}`
        : "";
    if (derived.length === 0) {
      return [{ status: "pass", detail: `every gated convention is changed by a perturbed variant${note}` }];
    }
    if (!context.sandbox) return [{ status: "unavailable", detail: "not run (--no-sandbox)" }];
    const failures: string[] = [];
    for (const d of derived) {
      const failure = await follows(context, d);
      if (failure) failures.push(failure);
    }
    const names = derived.map((d) => d.convention).join(", ");
    if (failures.length > 0) {
      return [
        {
          status: "fail",
          detail: `the oracle does not follow the artefact: under a variant that changes only ${failures.join("; only ")} (the oracle must read every convention from the placed document)${note}`,
        },
      ];
    }
    return [
      {
        status: "pass",
        detail: `the oracle follows ${names} when a variant changes that convention alone${note}`,
      },
    ];
  },
};
