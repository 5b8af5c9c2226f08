// Import of the battery's published response CSVs (<dir>/<track folder>/<model file>.csv): one
// response per readable row; every unreadable file or row is reported by file and line.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readCsv } from "../common/index.ts";
import { canonicalModel, type Track, trackOfFolder } from "./canonical.ts";
import { BetChoice, KeepChoice } from "./metrics.ts";

export const PathChoice = z.enum(["ANSWER_DIRECTLY", "REQUEST_HINT", "DECLINE"]);
export type PathChoice = z.infer<typeof PathChoice>;

export interface PublishedResponse {
  model: string;
  track: Track;
  file: string;
  line: number;
  correct: boolean;
  keep: KeepChoice;
  bet: BetChoice | null;
  /** T6 only: the prospective choice and the score the battery recorded for it. */
  pathChoice: PathChoice | null;
  score: number | null;
}

export interface ImportProblem {
  file: string;
  /** 1-based line; null for a problem of the whole file or folder. */
  line: number | null;
  message: string;
}

export interface PublishedImport {
  responses: PublishedResponse[];
  problems: ImportProblem[];
  /** Files read, relative to the imported folder. */
  files: string[];
}

/** Files above this size are refused rather than read (published files are tens of kilobytes). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

const BOOLEAN: Record<string, boolean> = { true: true, false: false };

interface Columns {
  correct: number;
  keep: number;
  bet: number;
  pathChoice: number;
  score: number;
}

function columnsOf(header: string[], track: Track): Columns | string {
  const at = (name: string) => header.findIndex((h) => h.trim().toLowerCase() === name);
  const correctName = track === "T6" ? "is_correct" : "correct";
  const columns = {
    correct: at(correctName),
    keep: at("keep_withdraw"),
    bet: at("bet_nobet"),
    pathChoice: at("path_choice"),
    score: at("score"),
  };
  const missing = [
    ...(columns.correct === -1 ? [correctName] : []),
    ...(columns.keep === -1 ? ["keep_withdraw"] : []),
    ...(track === "T6" && columns.pathChoice === -1 ? ["path_choice"] : []),
  ];
  return missing.length > 0 ? `the header lacks the column(s) ${missing.join(", ")}` : columns;
}

type RowResult = Omit<PublishedResponse, "model" | "track" | "file" | "line"> | string;

function readRow(fields: string[], c: Columns, header: string[]): RowResult {
  const cell = (i: number) => (i === -1 ? "" : (fields[i] ?? "").trim());
  const name = (i: number) => header[i]!.trim();
  const correct = BOOLEAN[cell(c.correct).toLowerCase()];
  if (correct === undefined)
    return `${name(c.correct)} is ${JSON.stringify(cell(c.correct))}, not True or False`;
  const keep = KeepChoice.safeParse(cell(c.keep).toUpperCase());
  if (!keep.success) return `keep_withdraw is ${JSON.stringify(cell(c.keep))}, not KEEP or WITHDRAW`;
  const betText = cell(c.bet).toUpperCase();
  const bet = BetChoice.safeParse(betText);
  if (betText !== "" && !bet.success) return `bet_nobet is ${JSON.stringify(cell(c.bet))}, not BET or NO_BET`;
  let pathChoice: PathChoice | null = null;
  if (c.pathChoice !== -1) {
    const choice = PathChoice.safeParse(cell(c.pathChoice).toUpperCase());
    if (!choice.success)
      return `path_choice is ${JSON.stringify(cell(c.pathChoice))}, not ANSWER_DIRECTLY, REQUEST_HINT or DECLINE`;
    pathChoice = choice.data;
  }
  const scoreText = cell(c.score);
  const score = scoreText === "" ? null : Number(scoreText);
  if (score !== null && !Number.isFinite(score)) return `score is ${JSON.stringify(scoreText)}, not a number`;
  return { correct, keep: keep.data, bet: bet.success ? bet.data : null, pathChoice, score };
}

/** Reads one file's rows into responses; problems are appended, never thrown. */
function readFile(file: string, shown: string, model: string, track: Track, into: PublishedImport): void {
  const problem = (line: number | null, message: string) => {
    into.problems.push({ file: shown, line, message });
  };
  const size = statSync(file).size;
  if (size > MAX_FILE_BYTES) {
    problem(null, `${size} bytes, over the ${MAX_FILE_BYTES}-byte limit`);
    return;
  }
  let header: string[] = [];
  let columns: Columns | undefined;
  // A bad row is reported and the reading goes on; a header without the columns, or text that is
  // not CSV (an unclosed quote), ends the file's reading with its problem.
  const stopped = readCsv(readFileSync(file, "utf8"), {
    header(fields) {
      const found = columnsOf(fields, track);
      if (typeof found === "string") return found;
      header = fields;
      columns = found;
      into.files.push(shown);
      return undefined;
    },
    record(fields, line) {
      const read = readRow(fields, columns!, header);
      if (typeof read === "string") problem(line, read);
      else into.responses.push({ model, track, file: shown, line, ...read });
      return undefined;
    },
    ragged(fields, line, width) {
      problem(line, `${fields.length} fields where the header has ${width}`);
      return undefined;
    },
  });
  if (stopped) problem(stopped.line, stopped.message);
}

/** Imports every track folder of `dir`; folders and files it cannot place are reported as problems. */
export function importPublished(dir: string): PublishedImport {
  const result: PublishedImport = { responses: [], problems: [], files: [] };
  const seen = new Map<string, string>();
  for (const folder of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (!folder.isDirectory()) continue;
    const track = trackOfFolder(folder.name);
    if (track === null) {
      result.problems.push({ file: folder.name, line: null, message: "not a track folder of the battery" });
      continue;
    }
    const files = readdirSync(path.join(dir, folder.name)).filter((f) => f.toLowerCase().endsWith(".csv"));
    for (const name of files.sort()) {
      const shown = `${folder.name}/${name}`;
      const model = canonicalModel(name);
      if (model === null) {
        result.problems.push({
          file: shown,
          line: null,
          message: "no canonical model name in the file name",
        });
        continue;
      }
      const earlier = seen.get(`${model}\t${track}`);
      if (earlier) {
        result.problems.push({
          file: shown,
          line: null,
          message: `${model} ${track} already read from ${earlier}`,
        });
        continue;
      }
      seen.set(`${model}\t${track}`, shown);
      readFile(path.join(dir, folder.name, name), shown, model, track, result);
    }
  }
  return result;
}
