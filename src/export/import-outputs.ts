// The outputs of an imported task, read from the absolute paths its instruction names: a path with a
// file extension that is not one of the task's data files is an output (so is a quoted file name
// in the same sentence as an absolute folder: "write 'trend.csv' in '/root/output/'"), declared relative to the
// Harbor image's WORKDIR (kgate's agent works in /home/agent/work, so /root/output/x.csv under
// WORKDIR /root is output/x.csv). Its format follows the extension; what the curator must still
// declare (a CSV's columns, a JSON document's schema) is a TODO. The instruction itself is never
// changed: each absolute path is named in a warning with where kgate expects it.
import path from "node:path";

type OutputInput = Record<string, unknown>;

const ABSOLUTE_FILE = /(?<![\w./-])\/(?:[\w.-]+\/)*[\w.-]*[A-Za-z0-9_-]\.[A-Za-z0-9]{1,8}(?![\w/])/g;
const ABSOLUTE_ANY = /(?<![\w./-])\/(?:[\w.-]+\/?)+/g;
const ABSOLUTE_FOLDER = /(?<![\w./-])\/(?:[\w.-]+\/)+(?![\w.-])/g;
const QUOTED_NAME = /[`'"]([\w.-]*[A-Za-z0-9_-]\.[A-Za-z0-9]{1,8})[`'"]/g;

/** Absolute paths as written, without a sentence's full stop. */
const trimmed = (p: string) => p.replace(/\.+$/, "");

/** "output 'a.csv' in '/root/output/'": quoted bare file names joined to the sentence's first folder. */
function namesInFolders(instruction: string): string[] {
  return instruction.split(/(?<=[.!?])\s+|\n\s*\n/).flatMap((sentence) => {
    const folder = sentence.match(ABSOLUTE_FOLDER)?.[0];
    if (!folder) return [];
    return [...sentence.matchAll(QUOTED_NAME)].map((m) => path.posix.join(folder, m[1]!));
  });
}

export interface MappedPath {
  /** As written in the instruction. */
  absolute: string;
  /** Relative to the work directory. */
  relative: string;
}

export interface OutputMapping {
  outputs: OutputInput[];
  mapped: MappedPath[];
  /** Every absolute path the instruction names (files and folders). */
  absolutePaths: string[];
}

function relativeToWorkdir(absolute: string, workdir: string): string {
  const rel = path.posix.relative(workdir, absolute);
  return rel && !rel.startsWith("..") ? rel : path.posix.basename(absolute);
}

function outputSpec(relative: string): OutputInput {
  const ext = path.posix.extname(relative).toLowerCase();
  if (ext === ".csv" || ext === ".tsv") {
    return {
      path: relative,
      format: "csv",
      description: "TODO: declare the columns of this output (imported from the instruction)",
      columns: [{ name: "TODO-column", type: "string" }],
    };
  }
  if (ext === ".json") {
    return {
      path: relative,
      format: "json",
      description: "TODO: declare this document's JSON Schema (imported from the instruction)",
      schema: { type: "object" },
    };
  }
  return { path: relative, format: "text", description: "imported from the instruction" };
}

/**
 * Outputs named by the instruction: absolute file paths that are not data files (`inputs`: their
 * paths in the Harbor image). None found: no output (the caller keeps the template's).
 */
export function outputsOf(instruction: string, workdir: string, inputs: ReadonlySet<string>): OutputMapping {
  const absolutePaths = [...new Set((instruction.match(ABSOLUTE_ANY) ?? []).map(trimmed))];
  const files = [...new Set([...(instruction.match(ABSOLUTE_FILE) ?? []), ...namesInFolders(instruction)])];
  const mapped = files
    .filter((f) => !inputs.has(path.posix.normalize(f)))
    .map((absolute) => ({ absolute, relative: relativeToWorkdir(absolute, workdir) }));
  const unique = [...new Map(mapped.map((m) => [m.relative, m])).values()];
  return { outputs: unique.map((m) => outputSpec(m.relative)), mapped: unique, absolutePaths };
}
