// `kgate check`'s judge calibration: before any trial trusts a judge criterion, its judge must pass
// the oracle's deliverable, fail each deliverable written under the default conventions and under
// each perturbed variant (where the criterion states other facts under them), fail an injection that
// tells it to pass, recognise each wrong deliverable against the criterion as its own conventions
// state it (attribution), and give the same verdict on k repeats. Then the whole rubric, judged, must
// fail every wrong deliverable (the rubric hole check, rubric-holes.ts). One result per criterion,
// with its agreement; `unavailable` when a judge's key is not set or its endpoint does not answer
// the ping made before the first judgement (the configuration, its URL and the fix named).
import { type JudgePanel, judgePanel, unansweredEndpoints, unansweredText } from "../agents/index.ts";
import { relativeToProject } from "../project.ts";
import { addUsage, type Usage } from "../record/index.ts";
import { judgeVerdict } from "../trial/index.ts";
import { verifyWith } from "../verify/index.ts";
import { type JudgeProbe, judgeCriteriaOf, judgeProbes, type TaskJudgeCriterion } from "./judge-probes.ts";
import { holesOf, rubricHoles } from "./rubric-holes.ts";
import type { CheckContext, CheckStep, StepOutcome } from "./types.ts";

/** Repeats of each judgement unless `kgate check --judge-repeats` says otherwise. */
export const DEFAULT_JUDGE_REPEATS = 3;

type Answer = { verdict: string; reason: string };

/** A panel that adds up what its calls cost. */
function metered(panel: JudgePanel): { panel: JudgePanel; spent: () => Usage | undefined } {
  let spent: Usage | undefined;
  return {
    spent: () => spent,
    panel: {
      ...panel,
      async ask(config, criterion, deliverables, signal) {
        const result = await panel.ask(config, criterion, deliverables, signal);
        spent = spent ? addUsage(spent, result.usage) : result.usage;
        return result;
      },
    },
  };
}

/** "pass 3/3", or the verdicts in order when they disagree. */
function tally(answers: readonly Answer[]): string {
  const first = answers[0]!.verdict;
  return answers.every((a) => a.verdict === first)
    ? `${first} ${answers.length}/${answers.length}`
    : answers.map((a) => a.verdict).join(", ");
}

/** Why a probe's answers fail the calibration, or null. */
function problemOf(probe: JudgeProbe, answers: readonly Answer[]): string | null {
  const invalid = answers.find((a) => a.verdict === "invalid");
  if (invalid) return `broke its answer schema on the ${probe.label} deliverable (${invalid.reason})`;
  if (!answers.every((a) => a.verdict === answers[0]!.verdict))
    return `gives different verdicts on ${answers.length} repeats of the ${probe.label} deliverable (${tally(answers)})`;
  if (answers[0]!.verdict === probe.expected) return null;
  const reason = answers[0]!.reason;
  if (probe.label === "oracle") return `fails the oracle's deliverable (${reason})`;
  if (probe.label === "injection")
    return `follows an injection: a wrong deliverable that tells the grader to pass it passes (${reason})`;
  if (probe.label.startsWith("as ")) {
    const set = probe.label.slice(3);
    return `fails the ${set} deliverable against the criterion as the ${set} conventions state it, so it cannot attribute a failure (${reason})`;
  }
  return probe.expected === "fail"
    ? `cannot tell the oracle from the ${probe.label} deliverable: it passes both (${reason})`
    : `fails the ${probe.label} deliverable, which states the same facts for this criterion (${reason})`;
}

async function calibrateCriterion(
  context: CheckContext,
  panel: JudgePanel,
  c: TaskJudgeCriterion,
  repeats: number,
): Promise<StepOutcome> {
  const id = `judge:${c.name}`;
  const { probes, gated } = judgeProbes(context.task!, context.verifier!, c);
  if (!gated) {
    return {
      id,
      status: "fail",
      detail: `its text is the same under every wrong convention set: nothing wrong by construction can show the judge tells them apart (state the facts the conventions decide in the criterion, or make it a code criterion)`,
    };
  }
  const seen: string[] = [];
  const problems: string[] = [];
  for (const probe of probes) {
    context.progress(`${context.id}: judge ${c.criterion.judge} on ${c.name}: ${probe.label} x${repeats}`);
    const answers: Answer[] = [];
    for (let i = 0; i < repeats; i++)
      answers.push(await panel.ask(c.criterion.judge, probe.criterion, probe.deliverables));
    seen.push(`${probe.label} ${tally(answers)}`);
    const problem = problemOf(probe, answers);
    if (problem) problems.push(problem);
  }
  const agreement = `k = ${repeats}: ${seen.join(", ")}`;
  if (problems.length > 0)
    return { id, status: "fail", detail: `the judge ${problems.join("; ")} [${agreement}]` };
  return {
    id,
    status: "pass",
    detail: `the judge tells the oracle from every wrong deliverable, repeatably (${agreement})`,
  };
}

/** The whole rubric, its judges asked (no attribution calls): every wrong deliverable must fail it. */
async function rubricOutcome(context: CheckContext, panel: JudgePanel): Promise<StepOutcome> {
  const task = context.task!;
  const loaded = context.verifier!;
  const holes = await rubricHoles(task, loaded, {
    judge: (outputs) => judgeVerdict(verifyWith(task, loaded, outputs), outputs, { panel, attribute: false }),
  });
  const passed = holesOf(holes).map((p) => p.label);
  if (passed.length > 0) {
    return {
      id: "judge:rubric",
      status: "fail",
      detail: `the rubric of ${holes.judged.join(", ")}, its judges asked, passes the deliverable written under ${passed.join(", ")}: the judge cannot tell it from the oracle's`,
    };
  }
  return {
    id: "judge:rubric",
    status: "pass",
    detail: `the rubric of ${holes.judged.join(", ")}, its judges asked, fails each deliverable written under a wrong convention (${holes.probes.map((p) => p.label).join(", ")})`,
  };
}

const usd = (u: Usage | undefined) =>
  u === undefined
    ? "no call"
    : `${u.modelCalls} call(s), ${u.costUsd === null ? "unpriced" : `$${u.costUsd.toFixed(4)}`}`;

export const judgeCalibrationStep: CheckStep = {
  id: "judge-calibration",
  // no prerequisites: a task whose verifier does not load has no judge criteria known, and no line here
  needs: [],
  async run(context) {
    if (!context.task || !context.verifier) return [];
    const criteria = judgeCriteriaOf(context.task!, context.verifier!);
    if (criteria.length === 0) return [];
    const judges = judgePanel(context.paths, context.env ? { env: context.env } : {});
    const configs = [...new Set(criteria.map((c) => c.criterion.judge))];
    const missing = configs.flatMap((name) => judges.unavailable(name) ?? []);
    if (missing.length === 0 && context.ping !== false) {
      const unanswered = await unansweredEndpoints(context.paths, configs, context.env ?? process.env);
      const configFile = relativeToProject(context.paths, context.paths.config);
      missing.push(...unanswered.map((u) => `the judge's ping: ${unansweredText(configFile, u)}`));
    }
    if (missing.length > 0) {
      return [
        {
          status: "unavailable",
          detail: `not run: ${missing.join("; ")}; until it runs, no trial should trust ${criteria.map((c) => `"${c.name}"`).join(", ")} (the other checks leave judge criteria out)`,
        },
      ];
    }
    const { panel, spent } = metered(judges);
    const repeats = context.judgeRepeats ?? DEFAULT_JUDGE_REPEATS;
    const results: StepOutcome[] = [];
    try {
      for (const c of criteria) results.push(await calibrateCriterion(context, panel, c, repeats));
      results.push(await rubricOutcome(context, panel));
    } catch (err) {
      results.push({
        id: "judge:error",
        status: "fail",
        detail: `a judge gave no verdict: ${(err as Error).message}`,
      });
    }
    const last = results.at(-1)!;
    results[results.length - 1] = { ...last, detail: `${last.detail}; calibration cost ${usd(spent())}` };
    return results;
  },
};
