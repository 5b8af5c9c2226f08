// The environment as a task's solver sees it: frozen (a solver that writes to it fails loudly), and
// noting each file the solver asks for that the task lacks, so a removed environment file is named,
// with its fix, when the solver then throws (instead of a parse error of the empty text it got).
import type { LoadedTask } from "../task/index.ts";
import type { EnvironmentFiles } from "./contract.ts";

const missingReads = new WeakMap<object, Set<string>>();
/** Names asked of any object that are no file name: JSON.stringify's, await's, Object.prototype's. */
const NOT_FILES = new Set(["toJSON", "then", ...Object.getOwnPropertyNames(Object.prototype)]);

/** The files by path, frozen and watched for names the task lacks. */
export function watchedEnvironment(files: Record<string, string>): EnvironmentFiles {
  const missing = new Set<string>();
  const watched = new Proxy(Object.freeze(files), {
    get(target, key, receiver) {
      if (typeof key === "string" && !Object.hasOwn(target, key) && !NOT_FILES.has(key)) missing.add(key);
      return Reflect.get(target, key, receiver);
    },
  });
  missingReads.set(watched, missing);
  return watched;
}

/**
 * `environment/bom.csv is missing from tasks/x (...): restore it ... or stop reading it in
 * verifiers/x.ts; then `, or "" when the solver asked only for files the task has.
 */
export function missingFilesSentence(
  task: Pick<LoadedTask, "id">,
  verifierFile: string,
  environment: EnvironmentFiles,
): string {
  const missing = [...(missingReads.get(environment) ?? [])];
  if (missing.length === 0) return "";
  const [verb, it] = missing.length === 1 ? ["is", "it"] : ["are", "them"];
  const has = Object.keys(environment);
  return (
    `${missing.map((m) => `environment/${m}`).join(", ")} ${verb} missing from tasks/${task.id} ` +
    `(the solver reads ${it}; the environment has ${has.length > 0 ? has.join(", ") : "no file"}): ` +
    `restore ${it} (the task's data generator writes the environment) or stop reading ${it} in ${verifierFile}; then `
  );
}
