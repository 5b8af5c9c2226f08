// What the sandbox steps read back after a trial: the outputs it collected (from the trial's folder
// in the run), and a verifier whose artefact conventions are another set, to verify them against it.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { TrialRecord } from "../record/index.ts";
import { trialDirOf } from "../trial/index.ts";
import type { LoadedVerifier, OutputForVerification } from "../verify/index.ts";
import type { CheckContext } from "./types.ts";

/** The oracle's outputs as the record collected them (from the trial's outputs folder). */
export function outputsOf(context: CheckContext, record: TrialRecord): OutputForVerification[] {
  const dir = path.join(trialDirOf(context.sandbox!.runDir, record.trialId), "outputs");
  return record.outputs.map((o) => {
    if (o.status !== "collected") return { path: o.path, status: o.status, reason: o.reason };
    try {
      return { path: o.path, status: "collected", bytes: readFileSync(path.join(dir, o.path)) };
    } catch {
      return { path: o.path, status: "missing", reason: "its copy in the run folder cannot be read" };
    }
  });
}

/**
 * The verifier with `conventions` as the artefact's: verifyWith then compares outputs with the answer
 * under them. Give the task another digest too (reference answers are cached by task digest).
 */
export function withArtefactConventions(loaded: LoadedVerifier, conventions: unknown): LoadedVerifier {
  return {
    ...loaded,
    verifier: { ...loaded.verifier, conventions: { ...loaded.verifier.conventions, artefact: conventions } },
  };
}
