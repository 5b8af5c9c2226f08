// Writes an imported task atomically enough: every file goes first into a staging folder inside the
// project (`.kgate-import-*`, the same file system), and only once all are written are the task's
// places renamed into position (verifier, audit, artefact folder, then the task folder last); an
// error on the way removes what was moved and the staging folder, so no half-written task is left.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../project.ts";

export interface StagedFile {
  /** Absolute path where the file belongs in the project. */
  file: string;
  bytes: Buffer | string;
  mode?: number;
}

/** The places of task `id` in the order they are moved in (the task folder last: a task appears whole). */
function places(paths: ProjectPaths, id: string): string[] {
  return [
    path.join(paths.verifiers, `${id}.ts`),
    path.join(paths.audits, `${id}.json`),
    path.join(paths.artefacts, id),
    path.join(paths.tasks, id),
  ];
}

export function writeStaged(paths: ProjectPaths, id: string, files: readonly StagedFile[]): void {
  const targets = places(paths, id);
  const taken = targets.filter((p) => existsSync(p));
  if (taken.length > 0)
    throw new Error(`task "${id}" already exists (${taken.join(", ")}); nothing was written`);
  mkdirSync(paths.root, { recursive: true });
  const stage = mkdtempSync(path.join(paths.root, ".kgate-import-"));
  const staged = (target: string) => path.join(stage, path.relative(paths.root, target));
  const moved: string[] = [];
  try {
    for (const f of files) {
      if (!targets.some((t) => f.file === t || f.file.startsWith(`${t}${path.sep}`))) {
        throw new Error(`${f.file} is outside the places of task "${id}"`);
      }
      mkdirSync(path.dirname(staged(f.file)), { recursive: true });
      writeFileSync(staged(f.file), f.bytes, { mode: f.mode ?? 0o644 });
    }
    for (const target of targets) {
      if (!existsSync(staged(target))) continue;
      mkdirSync(path.dirname(target), { recursive: true });
      renameSync(staged(target), target);
      moved.push(target);
    }
  } catch (err) {
    for (const target of moved.reverse()) rmSync(target, { recursive: true, force: true });
    throw err;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
