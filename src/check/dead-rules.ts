// The dead-rule check: each declared convention (a key of the verifier's convention object), set to
// its default value while the others keep the artefact's, must change at least one value of the
// answer; a convention that changes nothing is dead weight in the artefact (unless its artefact
// value is the default's: then it is context the artefact states, not a gate). Also the solver form of
// the compression probe (a section whose convention is dead can be cut without changing the answer).
// Where a rubric judges an output alone, the answer with a load-bearing convention at its default must
// also fail verification: a rubric whose criteria miss what a convention changes has a hole.
import { isDeepStrictEqual } from "node:util";
import type { LoadedTask } from "../task/index.ts";
import {
  type EnvironmentFiles,
  type LoadedVerifier,
  readEnvironment,
  renderAnswers,
  solveOrExplain,
  VerifierError,
  verifyWith,
} from "../verify/index.ts";
import { changedValues, isRecord } from "./answer-diff.ts";
import { rubricJudged } from "./rubric-holes.ts";

export interface ConventionWeight {
  /** The convention's key in the verifier's conventions. */
  name: string;
  /** solve() reads it under the artefact's conventions (false: the verifier's fault, not the data's). */
  read: boolean;
  /** Setting it to its default changes at least one value of the answer. */
  loadBearing: boolean;
  /** How many values (csv cells, json leaves, texts) of the answer change. */
  changedValues: number;
  /** The artefact's value is the default's: the convention is written down but gates nothing. */
  sameAsDefault: boolean;
  /**
   * Only when a rubric judges an output alone (a text output, or `judgesAlone`): the answer with this
   * convention at its default fails one of that rubric's criteria (false: they let it pass).
   */
  rubricFails?: boolean;
}

/**
 * Per declared convention of the verifier: does it bear load on this task's data? Conventions must
 * be an object (one key per convention); the answer under each mix is computed by the verifier's
 * own solver, so a convention the solver ignores is reported as dead, as it should be; whether the
 * solver reads it at all is noted (a proxy over the artefact's set), to tell whose fault that is.
 */
export function conventionWeights(
  task: LoadedTask,
  loaded: LoadedVerifier,
  environment: EnvironmentFiles = readEnvironment(task),
): ConventionWeight[] {
  const { artefact, default: defaults } = loaded.verifier.conventions;
  if (!isRecord(artefact) || !isRecord(defaults)) {
    throw new VerifierError(`${loaded.file}: conventions must be objects, one key per convention`);
  }
  const read = new Set<string | symbol>();
  // The artefact's set behind a proxy that notes which conventions solve() reads.
  const watched = new Proxy(artefact, {
    get(target, key, receiver) {
      read.add(key);
      return Reflect.get(target, key, receiver);
    },
  });
  const reference = solveOrExplain(task, loaded, environment, watched, "under the artefact conventions");
  const judged = rubricJudged(task, loaded);
  return Object.keys(artefact).map((name) => {
    const mixed = { ...artefact, [name]: defaults[name] };
    const answer = solveOrExplain(
      task,
      loaded,
      environment,
      mixed,
      `with convention "${name}" at its default`,
    );
    const changed = changedValues(reference, answer);
    const sameAsDefault = isDeepStrictEqual(artefact[name], defaults[name]);
    const weight = {
      name,
      read: read.has(name),
      loadBearing: changed > 0,
      changedValues: changed,
      sameAsDefault,
    };
    if (judged.length === 0 || changed === 0) return weight;
    const verdict = verifyWith(task, loaded, renderAnswers(task, loaded, answer));
    const ofJudged = verdict.criteria.filter((c) => judged.some((p) => c.name.startsWith(`${p}: `)));
    // Judge criteria are not asked here (the judge-calibration step asks them): a changed answer
    // only they could fail is left to the judge, not a hole of this check.
    const caught = ofJudged.some((c) => !c.passed && c.judge?.verdict !== "pending");
    if (!caught && ofJudged.some((c) => c.judge?.verdict === "pending")) return weight;
    return { ...weight, rubricFails: caught };
  });
}
