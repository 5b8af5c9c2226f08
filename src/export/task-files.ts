// The files of one exported task folder (Harbor's task layout; BenchFlow's adds the skill):
// instruction.md byte-identical, task.toml, environment/ (Dockerfile + the condition's file set),
// solution/ (the oracle) and tests/ (test.sh, the verifier bundle, the data it solves from).
import { readFileSync } from "node:fs";
import path from "node:path";
import { type Condition, conditionFileSet, type LoadedTask, listFiles } from "../task/index.ts";
import type { VerifierBundle } from "./bundle.ts";
import { dockerfile, SKILLS_CONTEXT, WORKDIR_CONTEXT } from "./dockerfile.ts";
import type { ExportFile, ExportLayout } from "./layout.ts";
import type { ExportManifest } from "./manifest.ts";
import { SOLUTION_FILES, solveScript, testScript } from "./scripts.ts";
import { skillFolder } from "./skill.ts";
import { taskToml } from "./task-toml.ts";

export interface ExportInput {
  task: LoadedTask;
  condition: Condition;
  layout: ExportLayout;
  name: string;
  kgateVersion: string;
  bundle: VerifierBundle;
}

function manifestOf(input: ExportInput): ExportManifest {
  const { task } = input;
  const fileSet = conditionFileSet(task, input.condition);
  return {
    layout: input.layout,
    kgateVersion: input.kgateVersion,
    task: task.id,
    condition: input.condition,
    digests: {
      task: task.digests.task,
      instruction: task.digests.instruction,
      fileSet: fileSet.digest,
      artefact: fileSet.artefactDigest,
    },
    environment: task.environment.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
  };
}

function environmentFiles(input: ExportInput): ExportFile[] {
  const { task, condition } = input;
  const skill = input.layout === "benchflow" ? skillFolder(task, condition) : null;
  const files: ExportFile[] = [
    {
      path: "environment/Dockerfile",
      bytes: dockerfile({ task: task.id, condition, skills: skill !== null }),
    },
    ...conditionFileSet(task, condition).files.map((f) => ({
      path: `environment/${WORKDIR_CONTEXT}/${f.path}`,
      bytes: f.read(),
    })),
  ];
  if (skill) files.push({ path: `environment/${SKILLS_CONTEXT}/${skill.name}/SKILL.md`, bytes: skill.text });
  return files;
}

function solutionFiles(task: LoadedTask): ExportFile[] {
  return [
    { path: "solution/solve.sh", bytes: solveScript(task.id, task.spec.solution.command), executable: true },
    ...listFiles(task.solutionDir).map((file) => ({
      path: `solution/${SOLUTION_FILES}/${file}`,
      bytes: readFileSync(path.join(task.solutionDir, file)),
    })),
  ];
}

function testFiles(input: ExportInput, manifest: ExportManifest): ExportFile[] {
  const { task } = input;
  return [
    { path: "tests/test.sh", bytes: testScript(task.id), executable: true },
    { path: "tests/verify.mjs", bytes: input.bundle.verify },
    { path: "tests/verifier.mjs", bytes: input.bundle.verifier },
    { path: "tests/task.json", bytes: readFileSync(path.join(task.dir, "task.json")) },
    { path: "tests/manifest.json", bytes: `${JSON.stringify(manifest, null, 2)}\n` },
    ...task.environment.map((f) => ({ path: `tests/environment/${f.path}`, bytes: readFileSync(f.absPath) })),
  ];
}

export function exportFiles(input: ExportInput): ExportFile[] {
  const manifest = manifestOf(input);
  return [
    { path: "instruction.md", bytes: input.task.instruction },
    { path: "task.toml", bytes: taskToml(input.task, manifest, input.name) },
    ...environmentFiles(input),
    ...solutionFiles(input.task),
    ...testFiles(input, manifest),
  ];
}
