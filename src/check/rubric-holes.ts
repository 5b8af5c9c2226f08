// The rubric's hole check: an output judged by its rubric alone (a text deliverable, or a csv/json
// output with `judgesAlone`) must fail every deliverable written under a wrong convention: the whole
// default set, each convention alone at its default, each perturbed variant. A criterion that passes
// every one of those deliverables checks nothing a convention changes: it is named as idle.
// Shared by the dead-rule step and by model-graded criteria (pass an async `judge`).
import type { LoadedTask } from "../task/index.ts";
import {
  type EnvironmentFiles,
  type LoadedVerifier,
  type OutputForVerification,
  readEnvironment,
  renderAnswers,
  solveOrExplain,
  solveRaw,
  type Verdict,
  verifyWith,
  withoutJudges,
} from "../verify/index.ts";
import { changedValues, isRecord } from "./answer-diff.ts";

/** One deliverable written under a wrong convention, and how the rubric judged it. */
export interface HoleProbe {
  /** `default`, `default:<convention>` (that convention alone at its default) or `variant:<name>`. */
  label: string;
  /** The convention set alone at its default, for `default:<convention>`. */
  convention?: string;
  /** Values of the judged outputs that differ from the artefact's answer (0: nothing to catch). */
  changedValues: number;
  /** A criterion of a judged output failed it (what must happen when changedValues > 0). */
  failed: boolean;
  /** Names of the judged outputs' criteria it failed. */
  failedCriteria: string[];
  /** Set when only judge criteria, not asked here (the code criteria's verdict), could fail it: no hole here. */
  leftToJudge?: true;
}

export interface RubricHoles {
  /** Output paths judged by their rubric alone; empty: the check has nothing to do. */
  judged: string[];
  probes: HoleProbe[];
  /** Criteria of judged outputs that passed every probe that changed a judged value. */
  idle: string[];
}

/** Judges a deliverable's outputs: verifyWith by default; a model-graded rubric passes its own. */
export type Judge = (outputs: OutputForVerification[]) => Verdict | Promise<Verdict>;

/** Output paths whose rubric alone judges them: text outputs with a rubric, and `judgesAlone` ones. */
export function rubricJudged(task: LoadedTask, loaded: LoadedVerifier): string[] {
  return task.spec.outputs
    .filter((o) => {
      const rubric = loaded.rubricOf(o.path);
      return rubric !== undefined && (o.format === "text" || rubric.judgesAlone === true);
    })
    .map((o) => o.path);
}

/** The wrong answers a judged output must fail: label, convention, raw answers. */
function wrongAnswers(
  task: LoadedTask,
  loaded: LoadedVerifier,
  environment: EnvironmentFiles,
): Array<{ label: string; convention?: string; answers: Record<string, unknown> }> {
  const { artefact, default: defaults } = loaded.verifier.conventions;
  const out: Array<{ label: string; convention?: string; answers: Record<string, unknown> }> = [
    { label: "default", answers: solveRaw(task, loaded, "default", environment) },
  ];
  if (isRecord(artefact) && isRecord(defaults)) {
    for (const name of Object.keys(artefact)) {
      const mixed = { ...artefact, [name]: defaults[name] };
      const answers = solveOrExplain(
        task,
        loaded,
        environment,
        mixed,
        `with convention "${name}" at its default`,
      );
      out.push({ label: `default:${name}`, convention: name, answers });
    }
  }
  for (const variant of task.variants) {
    if (variant.kind !== "perturbed") continue;
    out.push({
      label: `variant:${variant.name}`,
      answers: solveRaw(task, loaded, `variant:${variant.name}`, environment),
    });
  }
  return out;
}

/**
 * Runs the hole check: every wrong deliverable (rendered as an agent would write it) through
 * `judge`. Throws VerifierError when the solver throws.
 */
export async function rubricHoles(
  task: LoadedTask,
  loaded: LoadedVerifier,
  options: { environment?: EnvironmentFiles; judge?: Judge } = {},
): Promise<RubricHoles> {
  const judged = rubricJudged(task, loaded);
  if (judged.length === 0) return { judged, probes: [], idle: [] };
  const environment = options.environment ?? readEnvironment(task);
  // Without a judge, judge criteria are skipped: a probe only they could fail is left to the judge.
  const judge =
    options.judge ?? ((outputs) => withoutJudges(verifyWith(task, loaded, outputs), "left to the judge"));
  const only = (answers: Record<string, unknown>) => Object.fromEntries(judged.map((p) => [p, answers[p]]));
  const reference = only(solveRaw(task, loaded, "artefact", environment));
  const criteria = judged.flatMap((p) => loaded.rubricOf(p)!.criteria.map((c) => `${p}: ${c.name}`));
  const probes: HoleProbe[] = [];
  // judge criteria not asked (no judge here): neither holes nor idle, the judge calibration asks them
  const unasked = new Set<string>();
  for (const wrong of wrongAnswers(task, loaded, environment)) {
    const changed = changedValues(reference, only(wrong.answers));
    const verdict = await judge(renderAnswers(task, loaded, wrong.answers));
    const failedCriteria = verdict.criteria.filter(
      (c) => !c.passed && criteria.includes(c.name) && c.judge?.verdict !== "skipped",
    );
    const skippedNames = verdict.criteria
      .filter((c) => criteria.includes(c.name) && c.judge?.verdict === "skipped")
      .map((c) => c.name);
    for (const name of skippedNames) unasked.add(name);
    const skipped = skippedNames.length > 0;
    probes.push({
      label: wrong.label,
      ...(wrong.convention ? { convention: wrong.convention } : {}),
      changedValues: changed,
      failed: failedCriteria.length > 0,
      failedCriteria: failedCriteria.map((c) => c.name),
      ...(skipped && failedCriteria.length === 0 ? { leftToJudge: true as const } : {}),
    });
  }
  const telling = probes.filter((p) => p.changedValues > 0);
  const idle =
    telling.length === 0
      ? []
      : criteria.filter((c) => !unasked.has(c) && telling.every((p) => !p.failedCriteria.includes(c)));
  return { judged, probes, idle };
}

/** The probes that changed a judged value and still passed (not left to a judge): the rubric's holes. */
export function holesOf(result: RubricHoles): HoleProbe[] {
  return result.probes.filter((p) => p.changedValues > 0 && !p.failed && !p.leftToJudge);
}
