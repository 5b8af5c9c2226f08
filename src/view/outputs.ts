// The collected outputs of a trial as the viewer shows them: kgate kept each collected file in the
// trial's folder (trials/<id>/outputs/<path>); its bytes are the agent's, so at most the first
// 16 KiB are read, never through a link or out of the run directory, and a binary file is named,
// not shown. The page renders the text as text (Preact escapes it).
import { closeSync, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import type { CollectedOutput } from "../model/index.ts";
import type { TrialDetail } from "./model.ts";

export const OUTPUT_TEXT_CAP = 16 * 1024;

type ShownOutput = TrialDetail["outputs"][number];

function readHead(file: string): { bytes: Buffer; size: number } {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
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
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return { ...base, note: "not kept in the run directory" };
  if (!stat.isFile()) return { ...base, note: "not a regular file in the run directory: not read" };
  const { bytes, size } = readHead(file);
  if (bytes.includes(0)) return { ...base, note: `binary, ${size} bytes: not shown` };
  const cut = size > bytes.length ? `only the first ${bytes.length} of ${size} bytes are shown` : null;
  return { ...base, text: bytes.toString("utf8"), note: cut };
}
