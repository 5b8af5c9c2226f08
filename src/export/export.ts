// Exports tasks to another harness's layout: per task the verifier is bundled once, then one folder
// per condition (+A, -A, each variant), every script, Dockerfile, verifier and task.toml kgate writes
// marked with the export canary, and the manifest (manifest.jsonl, manifest.parquet) beside them. A
// task that cannot be exported never stops the others.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../project.ts";
import { type Condition, type LoadedTask, loadValidTask } from "../task/index.ts";
import { buildVerifierBundle } from "./bundle.ts";
import { exportCanary, stampCanary } from "./canary.ts";
import { type ExportLayout, exportName, writeExport } from "./layout.ts";
import { folderLine, type ManifestLine, writeManifest } from "./manifest-lines.ts";
import { exportFiles } from "./task-files.ts";

export interface ExportOptions {
  layout: ExportLayout;
  out: string;
  /** Only these conditions (default: +A, -A and every declared variant). */
  conditions?: Condition[];
  force?: boolean;
  kgateVersion: string;
  onProgress?: (line: string) => void;
}

export interface ExportedFolder {
  condition: Condition;
  name: string;
  dir: string;
}

export type TaskExport =
  | { task: string; ok: true; folders: ExportedFolder[] }
  | { task: string; ok: false; error: string; folders: ExportedFolder[] };

export function conditionsOf(task: LoadedTask): Condition[] {
  return ["+A", "-A", ...task.variants.map((v) => `variant:${v.name}` as const)];
}

export function selectedConditions(task: LoadedTask, wanted: Condition[] | undefined): Condition[] {
  const all = conditionsOf(task);
  if (!wanted) return all;
  const unknown = wanted.filter((c) => !all.includes(c));
  if (unknown.length > 0) {
    throw new Error(`task "${task.id}" has no condition ${unknown.join(", ")} (has: ${all.join(", ")})`);
  }
  return wanted;
}

export interface ExportResult {
  tasks: TaskExport[];
  /** manifest.jsonl and manifest.parquet. */
  manifest: string[];
}

async function exportOne(
  paths: ProjectPaths,
  id: string,
  options: ExportOptions,
  lines: ManifestLine[],
): Promise<TaskExport> {
  const folders: ExportedFolder[] = [];
  try {
    const task = loadValidTask(paths, id);
    const conditions = selectedConditions(task, options.conditions);
    options.onProgress?.(`${id}: bundling the verifier`);
    const bundle = await buildVerifierBundle(task);
    const canary = exportCanary(task);
    for (const condition of conditions) {
      const name = exportName(id, condition, options.layout);
      const dir = path.join(options.out, name);
      const { layout, kgateVersion } = options;
      const files = exportFiles({ task, condition, layout, name, kgateVersion, bundle, canary });
      writeExport(dir, stampCanary(files, canary), options.force ?? false);
      folders.push({ condition, name, dir });
      const form = layout === "harbor" ? "harbor" : "benchflow";
      lines.push(
        folderLine(
          task,
          { condition, name },
          { form, split: "eval", images: null, canary, kgateVersion, calibration: null },
        ),
      );
      options.onProgress?.(`${id}: ${condition} -> ${dir}`);
    }
    return { task: id, ok: true, folders };
  } catch (err) {
    return { task: id, ok: false, error: (err as Error).message, folders };
  }
}

export async function exportTasks(
  paths: ProjectPaths,
  ids: readonly string[],
  options: ExportOptions,
): Promise<ExportResult> {
  mkdirSync(options.out, { recursive: true });
  const lines: ManifestLine[] = [];
  const tasks: TaskExport[] = [];
  for (const id of ids) tasks.push(await exportOne(paths, id, options, lines));
  return { tasks, manifest: await writeManifest(options.out, lines) };
}
