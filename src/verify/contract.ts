// What a task's verifier module (verifiers/<id>.ts) exports, and what verification receives from a trial.
import type { Verdict } from "./verdict.ts";

/**
 * verifiers/<id>.ts default-exports `defineVerifier({...})`: a reference solver that is a pure
 * function of the environment files and a set of conventions, plus the conventions of the artefact,
 * the curator's declared defaults (what a competent agent without the artefact would assume), and
 * each declared variant. Failure attribution compares an output with the answers under each set.
 */
export interface TaskVerifier<C> {
  conventions: {
    artefact: C;
    default: C;
    /** One entry per variant declared in task.json (perturbed ones for attribution, compressed ones must equal artefact). */
    variants: Record<string, C>;
  };
  /**
   * Expected outputs keyed by output path (as in task.json outputs[].path): for csv an array of row
   * objects keyed by column name; for json the document; for text the rubric input (see below).
   */
  solve(environment: EnvironmentFiles, conventions: C): Record<string, unknown>;
}

/** Environment files by path relative to environment/, as UTF-8 text. */
export type EnvironmentFiles = Readonly<Record<string, string>>;

export function defineVerifier<C>(verifier: TaskVerifier<C>): TaskVerifier<C> {
  return verifier;
}

/** One declared output as a trial hands it to verification. */
export interface OutputForVerification {
  path: string;
  status: "collected" | "missing" | "rejected";
  /** The file's bytes when collected. */
  bytes?: Buffer;
  /** Why it is missing or was rejected. */
  reason?: string;
}

export type VerifyOutputs = (outputs: OutputForVerification[]) => Promise<Verdict>;
