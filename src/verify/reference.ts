// Reference answers: the task's solver run on its environment under one convention set, parsed and
// held to the output contract, and cached per task digest (calibration verifies many trials per task).
import { readFileSync } from "node:fs";
import type { LoadedTask } from "../task/index.ts";
import type { EnvironmentFiles } from "./contract.ts";
import type { LoadedVerifier } from "./load.ts";
import { type ParsedOutput, parseExpected } from "./parse.ts";
import { throwSite } from "./throw-site.ts";
import { missingFilesSentence, watchedEnvironment } from "./watched-environment.ts";

/** A verifier that loads but misbehaves when run (its solver throws, or answers off-contract). */
export class VerifierError extends Error {
  override name = "VerifierError";
}

/** `artefact`, `default`, or `variant:<name>`. */
export type ConventionSet = "artefact" | "default" | `variant:${string}`;

export type ExpectedOutputs = ReadonlyMap<string, ParsedOutput>;

/**
 * The environment as the solver sees it: frozen, so a solver that writes to it fails loudly, and
 * noting each file it asks for that the task lacks (a removed file is named when the solver throws).
 */
export function readEnvironment(task: LoadedTask): EnvironmentFiles {
  return watchedEnvironment(
    Object.fromEntries(task.environment.map((f) => [f.path, readFileSync(f.absPath, "utf8")])),
  );
}

export function conventionsOf(loaded: LoadedVerifier, set: ConventionSet): unknown {
  const { conventions } = loaded.verifier;
  if (set === "artefact") return conventions.artefact;
  if (set === "default") return conventions.default;
  const name = set.slice("variant:".length);
  if (!(name in conventions.variants))
    throw new VerifierError(`${loaded.file}: no conventions for variant "${name}"`);
  return conventions.variants[name];
}

/**
 * The task's solver on an environment under a set of conventions; a throw becomes a VerifierError
 * naming a missing environment file (when the solver asked for one), the verifier's line of the
 * throw, and `when` ("under the artefact conventions", "with convention \"rate\" at its default").
 */
export function solveOrExplain(
  task: LoadedTask,
  loaded: LoadedVerifier,
  environment: EnvironmentFiles,
  conventions: unknown,
  when: string,
): Record<string, unknown> {
  try {
    return loaded.verifier.solve(environment, conventions);
  } catch (err) {
    // the line of the throw when it is in the verifier's own file (not a library it calls)
    const site = throwSite(err, loaded.file) ?? loaded.file;
    throw new VerifierError(
      `${missingFilesSentence(task, loaded.file, environment)}${site}: solve() threw ${when}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/** Runs the solver (uncached) and returns its raw answers, checking they cover exactly the outputs. */
export function solveRaw(
  task: LoadedTask,
  loaded: LoadedVerifier,
  set: ConventionSet,
  environment: EnvironmentFiles = readEnvironment(task),
): Record<string, unknown> {
  const answers = solveOrExplain(
    task,
    loaded,
    environment,
    conventionsOf(loaded, set),
    `under the ${set} conventions`,
  );
  if (typeof answers !== "object" || answers === null) {
    throw new VerifierError(`${loaded.file}: solve() must return an object keyed by output path`);
  }
  const declared = task.spec.outputs.map((o) => o.path);
  for (const outputPath of declared) {
    if (!(outputPath in answers)) {
      throw new VerifierError(`${loaded.file}: solve() returned no answer for output "${outputPath}"`);
    }
  }
  for (const key of Object.keys(answers)) {
    if (!declared.includes(key)) {
      throw new VerifierError(
        `${loaded.file}: solve() returned an answer for "${key}", which is not a declared output`,
      );
    }
  }
  return answers;
}

/** Parses raw answers against the output contract; an off-contract answer is a VerifierError. */
export function parseAnswers(
  task: LoadedTask,
  loaded: LoadedVerifier,
  set: ConventionSet,
  answers: Record<string, unknown>,
): ExpectedOutputs {
  const parsed = new Map<string, ParsedOutput>();
  for (const output of task.spec.outputs) {
    const result = parseExpected(output, answers[output.path], loaded.rubricOf(output.path) !== undefined);
    if (!result.ok) {
      throw new VerifierError(
        `${loaded.file}: the ${set} answer for "${output.path}" breaks the output contract: ${result.reason}`,
      );
    }
    parsed.set(output.path, result.value);
  }
  return parsed;
}

const CACHE_SIZE = 32;
const cache = new Map<string, ExpectedOutputs>();

/**
 * The parsed answers under one convention set, computed once per task digest and set. Each call gets
 * its own copy of what the curator's code receives (a rubric criterion's `expected`): a criterion that
 * consumes it (splices matched lines out) changes no later verification in a kept worker.
 */
export function expectedOutputs(
  task: LoadedTask,
  loaded: LoadedVerifier,
  set: ConventionSet,
): ExpectedOutputs {
  const key = `${task.dir}\u0000${task.digests.task}\u0000${set}`;
  let parsed = cache.get(key);
  if (parsed) cache.delete(key);
  else parsed = parseAnswers(task, loaded, set, solveRaw(task, loaded, set));
  cache.set(key, parsed);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return copyOf(parsed);
}

/** A copy whose values (what criteria receive) share nothing with the cache; tables are kgate's own. */
function copyOf(outputs: ExpectedOutputs): ExpectedOutputs {
  return new Map(
    [...outputs].map(([path, o]) => [path, { table: o.table, value: structuredClone(o.value) }]),
  );
}
