// The manifest of an export (`manifest.jsonl` and `manifest.parquet`, for every export): one line
// per (task, condition, variant) with where it went (a row of a rows file, or a Harbor folder), its
// split, the task / instruction / file-set / artefact digests, the calibration's decision and each
// cell's passes, runs and Wilson bounds, the images (training Harbor), and the export canary.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { type Condition, conditionFileSet, type LoadedTask, variantOf } from "../task/index.ts";
import { canaryLine, PUBLICATION_WARNING } from "./canary.ts";
import { type ParquetField, writeParquet } from "./parquet.ts";

const Cell = z.object({
  cell: z.string(),
  agent: z.string(),
  condition: z.string(),
  passes: z.number().int(),
  runs: z.number().int(),
  lo: z.number(),
  hi: z.number(),
});

export const ManifestLine = z.object({
  task: z.string(),
  condition: z.string(),
  /** The variant's name for a variant condition, else null. */
  variant: z.string().nullable(),
  split: z.string(),
  /** A row of a rows file, or a folder: Harbor's layout (evaluation or training) or BenchFlow's. */
  form: z.enum(["row", "harbor", "benchflow"]),
  /** The rows file or the task folder, relative to the export folder. */
  path: z.string(),
  /** The row's index in its file; null for a folder. */
  row: z.number().int().nullable(),
  digests: z.object({
    task: z.string(),
    instruction: z.string(),
    fileSet: z.string(),
    artefact: z.string().nullable(),
  }),
  calibration: z
    .object({ run: z.string(), decision: z.string(), borderline: z.array(z.string()), cells: z.array(Cell) })
    .nullable(),
  reward: z.string(),
  scorer: z.string().nullable(),
  images: z.object({ agent: z.string(), verifier: z.string() }).nullable(),
  canary: z.string(),
  kgateVersion: z.string(),
});
export type ManifestLine = z.infer<typeof ManifestLine>;

/** The calibration of a task as a manifest line carries it (export/calibration.ts's facts and the run). */
type LineCalibration = ManifestLine["calibration"];

/** The line of an exported folder (Harbor's or BenchFlow's layout). */
export function folderLine(
  task: LoadedTask,
  folder: { condition: Condition; name: string },
  o: Pick<ManifestLine, "form" | "split" | "images" | "canary" | "kgateVersion"> & {
    calibration: LineCalibration;
  },
): ManifestLine {
  const fileSet = conditionFileSet(task, folder.condition);
  return {
    task: task.id,
    condition: folder.condition,
    variant: variantOf(folder.condition) ?? null,
    split: o.split,
    form: o.form,
    path: folder.name,
    row: null,
    digests: {
      task: task.digests.task,
      instruction: task.digests.instruction,
      fileSet: fileSet.digest,
      artefact: fileSet.artefactDigest,
    },
    calibration: o.calibration,
    reward: "binary",
    scorer: null,
    images: o.images,
    canary: o.canary,
    kgateVersion: o.kgateVersion,
  };
}

const FIELDS: ParquetField[] = [
  ...["task", "condition"].map((name) => ({ name, type: "STRING" as const })),
  { name: "variant", type: "STRING", optional: true },
  ...["split", "form", "path"].map((name) => ({ name, type: "STRING" as const })),
  { name: "row", type: "INT64", optional: true },
  ...["task_sha256", "instruction_sha256", "file_set_sha256"].map((name) => ({
    name,
    type: "STRING" as const,
  })),
  ...["artefact_sha256", "run", "decision"].map((name) => ({
    name,
    type: "STRING" as const,
    optional: true,
  })),
  {
    name: "cells",
    list: [
      ...["cell", "agent", "condition"].map((name) => ({ name, type: "STRING" as const })),
      ...["passes", "runs"].map((name) => ({ name, type: "INT64" as const })),
      ...["lo", "hi"].map((name) => ({ name, type: "DOUBLE" as const })),
    ],
  },
  { name: "reward", type: "STRING" },
  ...["scorer", "agent_image", "verifier_image"].map((name) => ({
    name,
    type: "STRING" as const,
    optional: true,
  })),
  ...["canary", "kgate_version"].map((name) => ({ name, type: "STRING" as const })),
];

function flat(line: ManifestLine): Record<string, unknown> {
  return {
    ...line,
    task_sha256: line.digests.task,
    instruction_sha256: line.digests.instruction,
    file_set_sha256: line.digests.fileSet,
    artefact_sha256: line.digests.artefact,
    run: line.calibration?.run ?? null,
    decision: line.calibration?.decision ?? null,
    cells: line.calibration?.cells ?? [],
    agent_image: line.images?.agent ?? null,
    verifier_image: line.images?.verifier ?? null,
    kgate_version: line.kgateVersion,
  };
}

/** Writes manifest.jsonl and manifest.parquet into `out`; returns their paths. */
export async function writeManifest(out: string, lines: readonly ManifestLine[]): Promise<string[]> {
  const jsonl = path.join(out, "manifest.jsonl");
  writeFileSync(jsonl, lines.map((l) => `${JSON.stringify(ManifestLine.parse(l))}\n`).join(""));
  const parquet = path.join(out, "manifest.parquet");
  const canaries = [...new Set(lines.map((l) => l.canary))];
  await writeParquet(parquet, {
    fields: FIELDS,
    rows: lines.map(flat),
    metadata: { "kgate.canaries": canaries.map(canaryLine).join("\n"), "kgate.warning": PUBLICATION_WARNING },
  });
  return [jsonl, parquet];
}
