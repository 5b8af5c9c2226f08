// Writes one exported task folder: the names of a condition's folder per layout, and the files
// (relative path -> bytes and mode) written below a folder that must not exist yet (or --force).
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Condition, variantOf } from "../task/index.ts";

/**
 * harbor: Harbor's split layout (task.toml, instruction.md, solution/, tests/); harbor-training: the
 * same for trainers (`--for-training`: images by digest, a separate verifier with tests/Dockerfile,
 * the outputs as artifacts, reward.json with metrics); benchflow: BenchFlow's native one (task.md,
 * oracle/, verifier/ with verifier.md and rubrics/); benchflow-split: BenchFlow's skills in Harbor's
 * split layout (`kgate export benchflow --split`, what BenchFlow calls legacy).
 */
export type ExportLayout = "harbor" | "harbor-training" | "benchflow" | "benchflow-split";

/** Whether a layout offers the artefact as a skill (BenchFlow's, native or split). */
export const withSkills = (layout: ExportLayout): boolean => layout.startsWith("benchflow");

export interface ExportFile {
  /** POSIX path relative to the task folder. */
  path: string;
  bytes: Buffer | string;
  executable?: boolean;
}

/** Folder name of a task under a condition: bom-costing-plus-a, ...-without-skill, ... */
export function exportName(task: string, condition: Condition, layout: ExportLayout): string {
  const variant = variantOf(condition);
  if (withSkills(layout)) {
    if (condition === "-A") return `${task}-without-skill`;
    return variant === undefined ? `${task}-with-skill` : `${task}-with-skill-variant-${variant}`;
  }
  if (condition === "-A") return `${task}-minus-a`;
  return variant === undefined ? `${task}-plus-a` : `${task}-variant-${variant}`;
}

export function writeExport(dir: string, files: readonly ExportFile[], force: boolean): void {
  if (existsSync(dir)) {
    if (!force) throw new Error(`${dir} exists (pass --force to replace it)`);
    rmSync(dir, { recursive: true, force: true });
  }
  for (const file of files) {
    const target = path.join(dir, ...file.path.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.bytes, { mode: file.executable ? 0o755 : 0o644 });
  }
}
