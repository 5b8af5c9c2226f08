// `kgate export rows`: single-turn rows of tasks for trainers (verl's Parquet, or JSONL), one per
// (task, condition, variant), split by task, with the reward module beside them (kgate_reward.py,
// kgate_compare.py; kgate_verify.mjs and kgate_node/ when a task's outputs only code can judge), the
// manifest and a README saying what the files are and why they must stay private. A task that
// cannot be exported never stops the others.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { packagePath } from "../../package-info.ts";
import type { ProjectPaths } from "../../project.ts";
import { type Condition, loadValidTask } from "../../task/index.ts";
import { loadVerifier } from "../../verify/index.ts";
import { bundleProgram, PROGRAMS } from "../bundle.ts";
import { type CalibrationFacts, checkCalibrated } from "../calibration.ts";
import { canaryLine, exportCanary, PUBLICATION_WARNING } from "../canary.ts";
import { conditionsOf, selectedConditions } from "../export.ts";
import { type ManifestLine, writeManifest } from "../manifest-lines.ts";
import { assignSplits, type SplitSpec } from "../split.ts";
import { rowsReadme } from "./readme.ts";
import { type TaskRowsInput, taskRows, type VerlRow } from "./rows.ts";
import { writeRowsFile } from "./rows-file.ts";
import { scorerOf } from "./scorer.ts";
import { writeTaskBundle } from "./task-bundle.ts";

export interface RowsExportOptions {
  format: "verl" | "jsonl";
  out: string;
  /** Default: +A and every variant; -A too under the ignorance-aware reward. */
  conditions?: Condition[];
  reward: TaskRowsInput["reward"];
  split: SplitSpec;
  seed: number;
  calibration?: CalibrationFacts;
  force?: boolean;
  kgateVersion: string;
  onProgress?: (line: string) => void;
}

export interface RowsExport {
  out: string;
  files: string[];
  rows: number;
  tasks: Array<{ task: string; ok: boolean; rows: number; error?: string }>;
}

const PYTHON_FILES = ["kgate_reward.py", "kgate_compare.py"];

function prepareOut(out: string, force: boolean): void {
  if (existsSync(out) && readdirSync(out).length > 0) {
    if (!force) throw new Error(`${out} exists and is not empty (pass --force to replace it)`);
    rmSync(out, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
}

function defaultConditions(options: RowsExportOptions, all: Condition[]): Condition[] {
  return options.reward.scheme === "ignorance-aware" ? all : all.filter((c) => c !== "-A");
}

async function oneTask(paths: ProjectPaths, id: string, options: RowsExportOptions, split: string) {
  const task = loadValidTask(paths, id);
  const calibration = options.calibration
    ? { ...checkCalibrated(options.calibration, task), run: options.calibration.runId }
    : null;
  const conditions = options.conditions
    ? selectedConditions(task, options.conditions)
    : defaultConditions(options, conditionsOf(task));
  const canary = exportCanary(task);
  const loaded = await loadVerifier(task);
  const node = scorerOf(task.spec.outputs, loaded) === "node";
  return taskRows({
    task,
    loaded,
    conditions,
    reward: options.reward,
    split,
    canary,
    kgateVersion: options.kgateVersion,
    calibration,
    bundle: node ? await writeTaskBundle(options.out, task, canary) : "",
  });
}

function pythonHeader(canaries: readonly string[], version: string): string {
  return [
    `# Written by kgate ${version} beside exported rows.`,
    ...canaries.map((c) => `# ${canaryLine(c)}`),
    `# ${PUBLICATION_WARNING}`,
    "",
  ].join("\n");
}

async function writeScorers(
  out: string,
  canaries: readonly string[],
  version: string,
  node: boolean,
): Promise<string[]> {
  const files = PYTHON_FILES.map((name) => {
    const source = readFileSync(packagePath("src", "export", "rows", "python", name), "utf8");
    writeFileSync(path.join(out, name), `${pythonHeader(canaries, version)}${source}`);
    return path.join(out, name);
  });
  if (node) {
    const comments = canaries.map((c) => `// ${canaryLine(c)}\n`).join("");
    writeFileSync(path.join(out, "kgate_verify.mjs"), `${comments}${await bundleProgram(PROGRAMS.rows)}`);
    files.push(path.join(out, "kgate_verify.mjs"));
  }
  return files;
}

export async function exportRows(
  paths: ProjectPaths,
  ids: readonly string[],
  options: RowsExportOptions,
): Promise<RowsExport> {
  prepareOut(options.out, options.force ?? false);
  const splits = assignSplits(ids, options.split, options.seed);
  const bySplit = new Map<string, Array<{ row: VerlRow; line: Omit<ManifestLine, "path" | "row"> }>>();
  const tasks: RowsExport["tasks"] = [];
  for (const id of ids) {
    try {
      const rows = await oneTask(paths, id, options, splits.get(id)!);
      for (const r of rows) bySplit.set(r.line.split, [...(bySplit.get(r.line.split) ?? []), r]);
      tasks.push({ task: id, ok: true, rows: rows.length });
      options.onProgress?.(`${id}: ${rows.length} row(s) (${splits.get(id)})`);
    } catch (err) {
      tasks.push({ task: id, ok: false, rows: 0, error: (err as Error).message });
    }
  }
  const files: string[] = [];
  const lines: ManifestLine[] = [];
  const canaries = [...new Set([...bySplit.values()].flat().map((r) => r.line.canary))];
  for (const [split, rows] of [...bySplit].sort(([a], [b]) => a.localeCompare(b))) {
    rows.forEach((r, index) => {
      r.row.extra_info.index = index;
    });
    const file = await writeRowsFile(
      options.out,
      split,
      options.format,
      rows.map((r) => r.row),
      canaries,
    );
    files.push(file);
    lines.push(...rows.map((r, index) => ({ ...r.line, path: path.basename(file), row: index })));
  }
  const node = lines.some((l) => l.scorer === "node");
  files.push(...(await writeScorers(options.out, canaries, options.kgateVersion, node)));
  files.push(...(await writeManifest(options.out, lines)));
  const readme = path.join(options.out, "README.md");
  const splitNames = [...bySplit.keys()].sort();
  writeFileSync(
    readme,
    rowsReadme({ version: options.kgateVersion, canaries, splits: splitNames, format: options.format, node }),
  );
  files.push(readme);
  return { out: options.out, files, rows: lines.length, tasks };
}
