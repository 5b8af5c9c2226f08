// `kgate export harbor --for-training`: Harbor task folders trainers run on cloud sandboxes (one per
// task, condition and variant): written, their two images built and pushed through the sandbox
// provider, then task.toml pinned to the pushed digests; the manifest beside them. A folder whose
// images could not be pushed is removed (a half-made export is never left); a task that cannot be
// exported never stops the others.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../../project.ts";
import type { SandboxProvider } from "../../sandbox/index.ts";
import { type Condition, loadValidTask } from "../../task/index.ts";
import { buildVerifierBundle } from "../bundle.ts";
import { type CalibrationFacts, checkCalibrated } from "../calibration.ts";
import { exportCanary } from "../canary.ts";
import { selectedConditions } from "../export.ts";
import { exportName, writeExport } from "../layout.ts";
import { folderLine, type ManifestLine, writeManifest } from "../manifest-lines.ts";
import { manifestOf } from "../task-files.ts";
import { type ImageBuilder, pushTrainingImages } from "./images.ts";
import { trainingFiles, verifierSha256 } from "./training-files.ts";
import { trainingToml } from "./training-toml.ts";

interface TrainingExportOptions {
  out: string;
  conditions?: Condition[];
  force?: boolean;
  kgateVersion: string;
  /** Where the images go (checkRegistry's form). */
  registry: string;
  provider: SandboxProvider;
  calibration?: CalibrationFacts;
  onProgress?: (line: string) => void;
}

interface TrainingFolder {
  condition: Condition;
  name: string;
  dir: string;
  images: { agent: string; verifier: string };
}

interface TrainingTaskExport {
  task: string;
  ok: boolean;
  error?: string;
  folders: TrainingFolder[];
}

interface TrainingExport {
  out: string;
  tasks: TrainingTaskExport[];
  manifest: string[];
}

async function exportTask(
  paths: ProjectPaths,
  id: string,
  o: TrainingExportOptions,
  builder: ImageBuilder,
  lines: ManifestLine[],
): Promise<TrainingTaskExport> {
  const folders: TrainingFolder[] = [];
  try {
    const task = loadValidTask(paths, id);
    const calibration = o.calibration
      ? { ...checkCalibrated(o.calibration, task), run: o.calibration.runId }
      : null;
    const bundle = await buildVerifierBundle(task);
    const base = { canary: exportCanary(task), calibration, verifierSha256: verifierSha256({ bundle }) };
    for (const condition of selectedConditions(task, o.conditions)) {
      const name = exportName(id, condition, "harbor-training");
      const dir = path.join(o.out, name);
      const input = { task, condition, name, kgateVersion: o.kgateVersion, bundle };
      writeExport(dir, trainingFiles(input, { ...base, images: null }), o.force ?? false);
      try {
        o.onProgress?.(`${id}: ${condition}: building and pushing its images`);
        const images = await pushTrainingImages(builder, dir, name);
        const facts = { ...base, images };
        const manifest = manifestOf({ ...input, layout: "harbor-training", canary: base.canary });
        writeFileSync(path.join(dir, "task.toml"), trainingToml(task, manifest, name, facts));
        const folder = { condition, name, dir, images };
        folders.push(folder);
        lines.push(
          folderLine(task, folder, {
            form: "harbor",
            split: "train",
            images,
            canary: base.canary,
            kgateVersion: o.kgateVersion,
            calibration: calibration && {
              run: calibration.run,
              decision: calibration.decision,
              borderline: calibration.borderline,
              cells: calibration.cells,
            },
          }),
        );
        o.onProgress?.(`${id}: ${condition} -> ${dir} (${images.agent})`);
      } catch (err) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
    return { task: id, ok: true, folders };
  } catch (err) {
    return { task: id, ok: false, error: (err as Error).message, folders };
  }
}

export async function exportTraining(
  paths: ProjectPaths,
  ids: readonly string[],
  o: TrainingExportOptions,
): Promise<TrainingExport> {
  mkdirSync(o.out, { recursive: true });
  const base = await o.provider.prepareImage(paths, o.onProgress);
  const builder: ImageBuilder = {
    provider: o.provider,
    base,
    registry: o.registry,
    onProgress: o.onProgress,
  };
  const lines: ManifestLine[] = [];
  const tasks: TrainingTaskExport[] = [];
  for (const id of ids) tasks.push(await exportTask(paths, id, o, builder, lines));
  return { out: o.out, tasks, manifest: await writeManifest(o.out, lines) };
}
