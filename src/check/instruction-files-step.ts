// `kgate check`'s instruction-files step: every data file the instruction names (`suppliers.csv`,
// `data/rates.json`) is in the task's environment, is an output the agent writes, or is the artefact;
// a name that is none of these is an input the agent will look for and not find, so the check fails
// naming it, its line and the fix.
import path from "node:path";
import { relativeToProject } from "../project.ts";
import type { LoadedTask } from "../task/index.ts";
import type { CheckStep } from "./types.ts";

/** Extensions of the files an instruction names as data: inputs to read, outputs to write. */
const DATA_EXTENSIONS =
  "csv|tsv|json|jsonl|ndjson|txt|xlsx|xls|xml|yaml|yml|toml|ini|parquet|sqlite|db|sql|pdf|log|md|html";

/** A file name: path segments of word characters, dots and dashes, ending in a data extension. */
const FILE_NAME = new RegExp(
  `(?<![\\w./-])(?:[\\w.-]+/)*[\\w.-]*\\w\\.(?:${DATA_EXTENSIONS})(?![\\w/-])`,
  "gi",
);

export interface NamedFile {
  name: string;
  /** 1-based line of its first mention. */
  line: number;
}

/** The file names an instruction mentions, each once, with the line of its first mention. */
export function namedFiles(instruction: string): NamedFile[] {
  const seen = new Map<string, NamedFile>();
  instruction.split("\n").forEach((text, i) => {
    for (const match of text.matchAll(FILE_NAME)) {
      // `./x.csv` names the work directory's x.csv, as `x.csv` does
      const name = match[0].replace(/^(?:\.\/)+/, "");
      if (!seen.has(name)) seen.set(name, { name, line: i + 1 });
    }
  });
  return [...seen.values()];
}

/** Whether `name` is one of `paths`: the same relative path, or the same file name. */
function among(name: string, paths: readonly string[]): boolean {
  const base = path.posix.basename(name);
  return paths.some((p) => p === name || p.endsWith(`/${name}`) || path.posix.basename(p) === base);
}

/** The named files the task has nowhere: not in the environment, not an output, not the artefact. */
export function missingInputs(task: LoadedTask, instruction: string): NamedFile[] {
  const environment = task.environment.map((f) => f.path);
  const known = [
    ...environment,
    ...task.spec.outputs.map((o) => o.path),
    // a variant is placed at the artefact's path
    task.spec.artefact.path,
  ];
  return namedFiles(instruction).filter((f) => !among(f.name, known));
}

export const instructionFilesStep: CheckStep = {
  id: "instruction-files",
  needs: ["task"],
  async run(context) {
    const task = context.task!;
    const instruction = task.instruction.toString("utf8");
    const named = namedFiles(instruction);
    const missing = missingInputs(task, instruction);
    if (missing.length === 0) {
      const names = named.map((f) => f.name).join(", ");
      return [
        {
          status: "pass",
          detail:
            named.length === 0
              ? "the instruction names no data file"
              : `each file the instruction names is in the environment, an output or the artefact: ${names}`,
        },
      ];
    }
    const where = relativeToProject(context.paths, path.join(task.dir, "instruction.md"));
    const dir = relativeToProject(context.paths, path.join(task.dir, "environment"));
    const has = task.environment.map((f) => f.path).join(", ") || "nothing";
    return [
      {
        status: "fail",
        detail:
          `the instruction names ${missing.map((f) => `${f.name} (${where}:${f.line})`).join(", ")}, which the environment lacks ` +
          `(it has ${has}): add the file to ${dir}/ or correct the instruction; ` +
          `a file the agent writes belongs in task.json "outputs"`,
      },
    ];
  },
};
