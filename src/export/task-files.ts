// The files of one exported task folder. Harbor's layout: instruction.md byte-identical, task.toml,
// environment/ (Dockerfile + the condition's file set), solution/ (the oracle) and tests/ (test.sh,
// the verifier bundle, the data it solves from). BenchFlow's native layout: task.md (config and
// instruction), the same environment/ plus the skill, oracle/ and verifier/ (plus verifier.md and
// rubrics/verifier.md); its split layout is Harbor's plus the skill.
import { readFileSync } from "node:fs";
import path from "node:path";
import { type Condition, conditionFileSet, type LoadedTask, listFiles } from "../task/index.ts";
import type { VerifierBundle } from "./bundle.ts";
import { dockerfile, SKILLS_CONTEXT, WORKDIR_CONTEXT } from "./dockerfile.ts";
import { type ExportFile, type ExportLayout, withSkills } from "./layout.ts";
import type { ExportManifest } from "./manifest.ts";
import { rubricMd, taskMd, verifierMd } from "./native.ts";
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
  /** The export canary (training exports). */
  canary?: string;
}

export function manifestOf(input: ExportInput): ExportManifest {
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
    ...(input.canary === undefined ? {} : { canary: input.canary }),
    environment: task.environment.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
  };
}

function environmentFiles(input: ExportInput): ExportFile[] {
  const { task, condition } = input;
  const skill = withSkills(input.layout) ? skillFolder(task, condition) : null;
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

function solutionFiles(task: LoadedTask, dir: string): ExportFile[] {
  const solve = solveScript(task.id, task.spec.solution.command, task.spec.artefact.path);
  return [
    { path: `${dir}/solve.sh`, bytes: solve, executable: true },
    ...listFiles(task.solutionDir).map((file) => ({
      path: `${dir}/${SOLUTION_FILES}/${file}`,
      bytes: readFileSync(path.join(task.solutionDir, file)),
    })),
  ];
}

function testFiles(input: ExportInput, manifest: ExportManifest, dir: string): ExportFile[] {
  const { task } = input;
  return [
    { path: `${dir}/test.sh`, bytes: testScript(task.id), executable: true },
    { path: `${dir}/verify.mjs`, bytes: input.bundle.verify },
    { path: `${dir}/verifier.mjs`, bytes: input.bundle.verifier },
    { path: `${dir}/task.json`, bytes: readFileSync(path.join(task.dir, "task.json")) },
    { path: `${dir}/manifest.json`, bytes: `${JSON.stringify(manifest, null, 2)}\n` },
    ...task.environment.map((f) => ({
      path: `${dir}/environment/${f.path}`,
      bytes: readFileSync(f.absPath),
    })),
  ];
}

export function exportFiles(input: ExportInput): ExportFile[] {
  const manifest = manifestOf(input);
  const { task } = input;
  if (input.layout === "benchflow") {
    return [
      { path: "task.md", bytes: taskMd(task, manifest, input.name) },
      ...environmentFiles(input),
      ...solutionFiles(task, "oracle"),
      ...testFiles(input, manifest, "verifier"),
      { path: "verifier/verifier.md", bytes: verifierMd(task) },
      { path: "verifier/rubrics/verifier.md", bytes: rubricMd(task) },
    ];
  }
  return [
    { path: "instruction.md", bytes: task.instruction },
    { path: "task.toml", bytes: taskToml(task, manifest, input.name) },
    ...environmentFiles(input),
    ...solutionFiles(task, "solution"),
    ...testFiles(input, manifest, "tests"),
  ];
}
