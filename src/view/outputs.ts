// The collected outputs of a trial as the viewer shows them: kgate kept each collected file in the
// trial's folder (trials/<id>/outputs/<path>); its bytes are the agent's, so at most the first
// 16 KiB are read, never through a link (the file's or a folder's on the way) or out of the run
// directory, and a binary file is named, not shown. The page renders the text as text (Preact
// escapes it).
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import type { CollectedOutput } from "../record/index.ts";
import type { TrialDetail } from "./schema.ts";

export const OUTPUT_TEXT_CAP = 16 * 1024;

type ShownOutput = TrialDetail["outputs"][number];

/** The first bytes of a regular file, opened without following a final link or waiting on a FIFO. */
function readHead(file: string): { bytes: Buffer; size: number } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null; // replaced by a link or removed since it was judged
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return null;
    const size = stat.size;
    const bytes = Buffer.alloc(Math.min(size, OUTPUT_TEXT_CAP));
    let length = 0;
    for (let n = -1; n !== 0 && length < bytes.length; length += n) {
      n = readSync(fd, bytes, length, bytes.length - length, null);
    }
    return { bytes: bytes.subarray(0, length), size };
  } finally {
    closeSync(fd);
  }
}

/** Whether a folder between the trial's folder and the output is a link (or no folder at all). */
function linkOnTheWay(runDir: string, file: string): boolean {
  const parts = path.relative(runDir, path.dirname(file)).split(path.sep).filter(Boolean);
  let at = runDir;
  for (const part of parts) {
    at = path.join(at, part);
    const stat = lstatSync(at, { throwIfNoEntry: false });
    if (stat && !stat.isDirectory()) return true;
  }
  return false;
}

/** Where kgate kept a collected output, or null when that place would leave the run directory. */
function keptAt(runDir: string, trialId: string, output: string): string | null {
  const file = path.resolve(runDir, "trials", trialId, "outputs", ...output.split("/"));
  const inside = path.relative(runDir, file);
  return inside.startsWith("..") || path.isAbsolute(inside) ? null : file;
}

export function shownOutput(runDir: string, trialId: string, o: CollectedOutput): ShownOutput {
  const base = { path: o.path, status: o.status, reason: o.reason ?? null, text: null, note: null };
  if (o.status !== "collected") return base;
  const file = keptAt(runDir, trialId, o.path);
  if (!file) return { ...base, note: "its path leaves the run directory: not read" };
  if (linkOnTheWay(runDir, file)) return { ...base, note: "its path passes through a link: not read" };
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return { ...base, note: "not kept in the run directory" };
  const head = stat.isFile() ? readHead(file) : null;
  if (!head) return { ...base, note: "not a regular file in the run directory: not read" };
  const { bytes, size } = head;
  if (bytes.includes(0)) return { ...base, note: `binary, ${size} bytes: not shown` };
  const cut = size > bytes.length ? `only the first ${bytes.length} of ${size} bytes are shown` : null;
  return { ...base, text: bytes.toString("utf8"), note: cut };
}
