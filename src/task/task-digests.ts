// The digests of a task that go into every record: instruction, environment, artefact, variants, task.
import { type DigestedFile, fileSetDigest, sha256 } from "./digest.ts";

export interface TaskDigests {
  /** sha256 of instruction.md bytes. */
  instruction: string;
  /** File-set digest of environment/ (the -A file set). */
  environment: string;
  /** sha256 of artefacts/<id>/artefact.md bytes. */
  artefact: string;
  /** sha256 of each declared variant's bytes. */
  variants: Record<string, string>;
  /** Everything that defines the task (task.json, instruction, environment, solution, verifier, audit). */
  task: string;
}

export interface DigestInputs {
  specBytes: Buffer;
  instruction: Buffer;
  environment: DigestedFile[];
  solution: DigestedFile[];
  verifier: Buffer;
  audit: Buffer;
  artefact: string;
  variants: Record<string, string>;
}

export function computeDigests(input: DigestInputs): TaskDigests {
  const instruction = sha256(input.instruction);
  const environment = fileSetDigest(input.environment);
  const task = fileSetDigest([
    { path: "task.json", sha256: sha256(input.specBytes) },
    { path: "instruction.md", sha256: instruction },
    { path: "environment/", sha256: environment },
    { path: "solution/", sha256: fileSetDigest(input.solution) },
    { path: "verifier.ts", sha256: sha256(input.verifier) },
    { path: "audit.json", sha256: sha256(input.audit) },
  ]);
  return { instruction, environment, artefact: input.artefact, variants: input.variants, task };
}
