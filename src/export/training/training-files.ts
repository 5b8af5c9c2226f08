// The files of one training export folder: Harbor's layout (as `kgate export harbor` writes it) with
// task.toml in schema 1.4 (images by digest, the separate verifier, artifacts, calibration), a
// tests/Dockerfile (the verifier's image: Harbor builds it from tests/ and never uploads tests/ in
// separate mode), reward.json with metrics (tests/manifest.json's layout says so), and the export
// canary in every file kgate writes; the task's own bytes (instruction, data, task.json, solution
// files) stay as they are.
import { createHash } from "node:crypto";
import { stampCanary } from "../canary.ts";
import { verifierDockerfile } from "../dockerfile.ts";
import type { ExportFile } from "../layout.ts";
import { type ExportInput, exportFiles, manifestOf } from "../task-files.ts";
import { type TrainingFacts, trainingToml } from "./training-toml.ts";

export function verifierSha256(input: Pick<ExportInput, "bundle">): string {
  return createHash("sha256").update(input.bundle.verify).update(input.bundle.verifier).digest("hex");
}

export function trainingFiles(
  input: Omit<ExportInput, "layout" | "canary">,
  facts: TrainingFacts,
): ExportFile[] {
  const full: ExportInput = { ...input, layout: "harbor-training", canary: facts.canary };
  const manifest = manifestOf(full);
  const files = exportFiles(full).map((f) =>
    f.path === "task.toml" ? { ...f, bytes: trainingToml(input.task, manifest, input.name, facts) } : f,
  );
  files.push({
    path: "tests/Dockerfile",
    bytes: verifierDockerfile({ task: input.task.id, condition: input.condition }),
  });
  return stampCanary(files, facts.canary);
}
