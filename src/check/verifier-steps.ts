// Checks of the verifier without Docker: it loads, it is deterministic, and the gate bites: the
// default-convention answer fails as ignorance, each perturbed answer fails as that variant, each
// compressed answer passes.
import { isDeepStrictEqual } from "node:util";
import type { LoadedTask } from "../task/index.ts";
import {
  type ConventionSet,
  type LoadedVerifier,
  leftToJudge,
  loadVerifier,
  type OutputForVerification,
  readEnvironment,
  renderAnswers,
  solveRaw,
  throwSite,
  type Verdict,
  VerifierError,
  verifyWith,
  withoutJudges,
} from "../verify/index.ts";
import type { CheckStep, StepOutcome } from "./types.ts";
import { failureText } from "./verdict-text.ts";

export const verifierStep: CheckStep = {
  id: "verifier",
  needs: ["task"],
  async run(context) {
    const loaded = await loadVerifier(context.task!).catch((err: Error) => err);
    if (loaded instanceof Error) return [{ status: "fail", detail: loaded.message }];
    context.verifier = loaded;
    const rubrics = context.task!.spec.outputs.filter((o) => loaded.rubricOf(o.path)).length;
    const variants = Object.keys(loaded.verifier.conventions.variants).length;
    return [
      {
        status: "pass",
        detail: `${loaded.file} loads: artefact, default and ${variants} variant convention set(s)${rubrics > 0 ? `, ${rubrics} rubric(s)` : ""}`,
      },
    ];
  },
};

/** "must fail as X", and whether `verdict` does (rubric-judged texts are attributed by their criteria). */
export function failsAs(
  verdict: Pick<Verdict, "status" | "attribution">,
  label: string,
): { ok: boolean; expected: string } {
  return {
    ok: verdict.status === "fail" && verdict.attribution === label,
    expected: `must fail as ${label}`,
  };
}

/** Why a check without a judge leaves judge criteria out of its verdicts. */
export const LEFT_TO_JUDGE = "left to the judge-calibration step";

/** The code criteria's verdict of outputs (judge criteria skipped: the judge-calibration step asks the judge). */
export function codeVerdict(
  task: LoadedTask,
  loaded: LoadedVerifier,
  outputs: OutputForVerification[],
): Verdict {
  return withoutJudges(verifyWith(task, loaded, outputs), LEFT_TO_JUDGE);
}

/** The verdict of the answer a solver gives under `set`, rendered as an agent would write it. */
function verdictOfAnswer(task: LoadedTask, loaded: LoadedVerifier, set: ConventionSet): Verdict {
  const answers = solveRaw(task, loaded, set);
  return codeVerdict(task, loaded, renderAnswers(task, loaded, answers));
}

/**
 * A verdict that does not fail as `label` because its judge criteria were not asked (they state other
 * facts under that candidate): the step defers to the judge, saying so; null when nothing is deferred.
 */
export function deferredToJudge(verdict: Verdict, label: string, what: string): StepOutcome | null {
  const left = leftToJudge(verdict, label);
  if (left.length === 0) return null;
  const judged = verdict.status === "pass" ? "passes its code criteria" : `fails (${failureText(verdict)})`;
  return {
    status: "pass",
    detail: `${what} ${judged}; judge-calibration checks that the judge fails it on ${left.map((n) => `"${n}"`).join(", ")} (their text differs under ${label})`,
  };
}

function describe(verdict: Verdict): string {
  if (verdict.status === "pass") return "passes";
  const agreement = verdict.attribution ? verdict.agreement?.[verdict.attribution] : undefined;
  const share = agreement === undefined ? "" : ` (agreement ${agreement.toFixed(2)})`;
  return `fails (${failureText(verdict)}), attributed to ${verdict.attribution}${share}`;
}

const ORDER_DEPENDENT =
  "the default-convention answer got another verdict once the artefact's answer had been verified: the verifier keeps state between verifications (a module variable, or a criterion that changes what it is given), so in a kept verification worker a trial's verdict would depend on the trials before it";

export const deterministicStep: CheckStep = {
  id: "deterministic",
  needs: ["task", "verifier"],
  async run(context): Promise<StepOutcome[]> {
    const task = context.task!;
    const loaded = context.verifier!;
    try {
      const first = solveRaw(task, loaded, "artefact", readEnvironment(task));
      const second = solveRaw(task, loaded, "artefact", readEnvironment(task));
      if (!isDeepStrictEqual(first, second)) {
        return [
          {
            status: "fail",
            detail: "solve() gave two different answers for the same environment and conventions",
          },
        ];
      }
      const right = renderAnswers(task, loaded, first);
      const wrong = renderAnswers(task, loaded, solveRaw(task, loaded, "default"));
      // one after the other in one process, as a kept verification worker verifies trials: a wrong
      // answer, the right one, the wrong one again, the right one again
      const [wrong1, right1, wrong2, right2] = [wrong, right, wrong, right].map((o) =>
        codeVerdict(task, loaded, o),
      );
      if (!isDeepStrictEqual(right1, right2)) {
        return [{ status: "fail", detail: "the same outputs got two different verdicts" }];
      }
      if (!isDeepStrictEqual(wrong1, wrong2)) {
        return [{ status: "fail", detail: ORDER_DEPENDENT }];
      }
      if (right1!.status !== "pass") {
        return [{ status: "fail", detail: `the artefact's own answer ${describe(right1!)}` }];
      }
      const judged = right1!.criteria.filter((c) => c.judge?.verdict !== "skipped");
      const left = right1!.criteria.length - judged.length;
      const detail =
        judged.map((c) => c.detail ?? c.name).join("; ") +
        (left > 0 ? ` (${left} judge criteria left to judge-calibration)` : "");
      return [
        {
          status: "pass",
          detail: `same answer and same passing verdict twice, and the default-convention answer's verdict unchanged after it: ${detail}`,
        },
      ];
    } catch (err) {
      // the verifier's own code threw: the trials after this step would only meet it again
      if (err instanceof VerifierError && err.cause !== undefined) {
        context.verifierThrew = throwSite(err.cause, loaded.file) ?? loaded.file;
      }
      return [{ status: "fail", detail: (err as Error).message }];
    }
  },
};

export const defaultStep: CheckStep = {
  id: "default",
  needs: ["task", "verifier"],
  async run(context) {
    try {
      const verdict = verdictOfAnswer(context.task!, context.verifier!, "default");
      const { ok } = failsAs(verdict, "default-convention");
      const deferred = ok
        ? null
        : deferredToJudge(verdict, "default-convention", "the default-convention answer");
      if (deferred) return [deferred];
      const why =
        verdict.status === "pass"
          ? ": the default conventions give the artefact's answer, the gate does not bite"
          : "";
      return [
        { status: ok ? "pass" : "fail", detail: `the default-convention answer ${describe(verdict)}${why}` },
      ];
    } catch (err) {
      return [{ status: "fail", detail: (err as Error).message }];
    }
  },
};

export const variantStep: CheckStep = {
  id: "variants",
  needs: ["task", "verifier"],
  async run(context) {
    const task = context.task!;
    const results: StepOutcome[] = [];
    for (const variant of task.variants) {
      const id = `variant:${variant.name}`;
      if (variant.kind === "other") {
        results.push({ id, status: "skipped", detail: "variants of kind other carry no expectation" });
        continue;
      }
      try {
        const verdict = verdictOfAnswer(task, context.verifier!, `variant:${variant.name}`);
        const perturbed = failsAs(verdict, `perturbed-convention:${variant.name}`);
        const ok = variant.kind === "compressed" ? verdict.status === "pass" : perturbed.ok;
        const expected = variant.kind === "compressed" ? "must pass" : perturbed.expected;
        const label = `perturbed-convention:${variant.name}`;
        const deferred =
          ok || variant.kind === "compressed"
            ? null
            : deferredToJudge(verdict, label, `${variant.kind}: its answer`);
        if (deferred) {
          results.push({ id, ...deferred });
          continue;
        }
        results.push({
          id,
          status: ok ? "pass" : "fail",
          detail: `${variant.kind}: its answer ${describe(verdict)}${ok ? "" : ` (${expected})`}`,
        });
      } catch (err) {
        results.push({ id, status: "fail", detail: (err as Error).message });
      }
    }
    return results;
  },
};
