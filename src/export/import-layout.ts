// Which task layout a folder to import holds, and its parts: Harbor's (task.toml, instruction.md,
// environment/, tests/test.sh, solution/) or BenchFlow's native one (task.md, environment/,
// verifier/, oracle/; task.md is authoritative when both are there, as BenchFlow reads it). The
// files are read with import-source.ts (no special file, link or oversized file is opened).
import path from "node:path";
import { HarborTaskError, type HarborTaskToml, readHarborToml } from "./harbor-toml.ts";
import { readSourceFile, type SourceFile } from "./import-source.ts";
import { readTaskMd } from "./task-md.ts";

/** Harbor's TaskPaths.is_valid: what a task folder must hold. */
const HARBOR_REQUIRED = ["task.toml", "instruction.md", "environment", "tests/test.sh"];

export interface SourceLayout {
  kind: "harbor" | "benchflow";
  instruction: Buffer;
  config: HarborTaskToml;
  /** Folder of the verifier (tests/ or verifier/) and of the oracle (solution/, oracle/ or none). */
  tests: string;
  solution: string | null;
  /** Top-level files and folders kept for reference under tasks/<id>/harbor/. */
  kept: string[];
  warnings: string[];
}

const has = (files: readonly SourceFile[], p: string) =>
  files.some((f) => f.path === p || f.path.startsWith(`${p}/`));

export function readLayout(source: string, files: readonly SourceFile[]): SourceLayout {
  const read = (p: string) => readSourceFile(path.join(source, p));
  const warnings: string[] = [];
  if (has(files, "task.md")) {
    const tests = has(files, "verifier") ? "verifier" : "tests";
    const missing = ["environment", tests].filter((p) => !has(files, p));
    if (missing.length > 0) {
      throw new HarborTaskError(
        `${source} is not a BenchFlow task folder: missing ${missing.join(", ")} (beside task.md)`,
      );
    }
    const doc = readTaskMd(path.join(source, "task.md"), read("task.md").toString("utf8"));
    if (doc.otherSections.length > 0) {
      warnings.push(
        `task.md has sections kgate does not run (${doc.otherSections.join(", ")}): kept under harbor/task.md; only its prompt is the instruction`,
      );
    }
    if (has(files, "instruction.md") && !read("instruction.md").equals(Buffer.from(doc.instruction))) {
      warnings.push(
        "instruction.md differs from task.md's prompt: task.md is authoritative (as BenchFlow reads it); instruction.md is kept under harbor/",
      );
    }
    const solution = has(files, "oracle") ? "oracle" : has(files, "solution") ? "solution" : null;
    const kept = ["task.md", "task.toml", "instruction.md", tests, "prompts"].filter((p) => has(files, p));
    return {
      kind: "benchflow",
      instruction: Buffer.from(doc.instruction),
      config: doc.config,
      tests,
      solution,
      kept,
      warnings,
    };
  }
  const missing = HARBOR_REQUIRED.filter((p) => !has(files, p));
  if (missing.length > 0) {
    throw new HarborTaskError(`${source} is not a Harbor task folder: missing ${missing.join(", ")}`);
  }
  const config = readHarborToml(path.join(source, "task.toml"), read("task.toml").toString("utf8"));
  return {
    kind: "harbor",
    instruction: read("instruction.md"),
    config,
    tests: "tests",
    solution: has(files, "solution") ? "solution" : null,
    kept: ["task.toml", "tests"],
    warnings,
  };
}
