// Writes one exported task folder: the names of a condition's folder per layout, and the files
// (relative path -> bytes and mode) written below a folder that must not exist yet (or --force).
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Condition, variantOf } from "../task/index.ts";

export type ExportLayout = "harbor" | "benchflow";

export interface ExportFile {
  /** POSIX path relative to the task folder. */
  path: string;
  bytes: Buffer | string;
  executable?: boolean;
}

/** Folder name of a task under a condition: bom-costing-plus-a, ...-without-skill, ... */
export function exportName(task: string, condition: Condition, layout: ExportLayout): string {
  const variant = variantOf(condition);
  if (layout === "benchflow") {
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
