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
  numbersMatch,
  readEnvironment,
  renderAnswers,
  VerifierError,
  verifyWith,
} from "../verify/index.ts";

export interface ConventionWeight {
  /** The convention's key in the verifier's conventions. */
  name: string;
  /** Setting it to its default changes at least one value of the answer. */
  loadBearing: boolean;
  /** How many values (csv cells, json leaves, texts) of the answer change. */
  changedValues: number;
  /** The artefact's value is the default's: the convention is written down but gates nothing. */
  sameAsDefault: boolean;
  /**
   * Only when a rubric judges an output alone (`judgesAlone`): the answer with this convention at its
   * default fails verification (false: the criteria let a changed answer pass).
   */
  rubricFails?: boolean;
}

/** Numbers closer than this are the same value (the comparison tolerance of the method, 1e-4). */
const SAME_NUMBER = { abs: 1e-4, rel: 0 };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Leaves of a raw answer by their path: `output/x.csv/3/total`. */
function leaves(value: unknown, at: string, into: Map<string, unknown>): Map<string, unknown> {
  const children = Array.isArray(value) || isRecord(value) ? Object.entries(value) : [];
  if (children.length === 0) into.set(at, value);
  for (const [key, child] of children) leaves(child, `${at}/${key}`, into);
  return into;
}

function sameLeaf(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return numbersMatch(a, b, SAME_NUMBER);
  return isDeepStrictEqual(a, b);
}

/** How many leaves differ between two answers (a leaf present in one only counts once). */
export function changedValues(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const left = leaves(a, "", new Map());
  const right = leaves(b, "", new Map());
  let changed = 0;
  for (const [key, value] of left) if (!right.has(key) || !sameLeaf(value, right.get(key))) changed++;
  for (const key of right.keys()) if (!left.has(key)) changed++;
  return changed;
}

/**
 * Per declared convention of the verifier: does it bear load on this task's data? Conventions must
 * be an object (one key per convention); the answer under each mix is computed by the verifier's
 * own solver, so a convention the solver ignores is reported as dead, as it should be.
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
  const reference = loaded.verifier.solve(environment, artefact);
  const rubricAlone = task.spec.outputs.some((o) => loaded.rubricOf(o.path)?.judgesAlone);
  return Object.keys(artefact).map((name) => {
    const mixed = { ...artefact, [name]: defaults[name] };
    let answer: Record<string, unknown>;
    try {
      answer = loaded.verifier.solve(environment, mixed);
    } catch (err) {
      throw new VerifierError(
        `${loaded.file}: solve() threw with convention "${name}" at its default: ${(err as Error).message}`,
      );
    }
    const changed = changedValues(reference, answer);
    const sameAsDefault = isDeepStrictEqual(artefact[name], defaults[name]);
    const weight = { name, loadBearing: changed > 0, changedValues: changed, sameAsDefault };
    if (!rubricAlone || changed === 0) return weight;
    const verdict = verifyWith(task, loaded, renderAnswers(task, loaded, answer));
    return { ...weight, rubricFails: verdict.status !== "pass" };
  });
}
