// What one task's audit reads, from any source (working tree or git index): instruction, environment
// files, artefact, task.json's artefact path and the audit file. Problems name the file and field.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../project.ts";
import type { LoadedTask } from "../task/index.ts";
// The audit imports the task modules it uses one by one: the task loader's schemas are classic zod.
import { extractCanary, type Problem, parseJsonText, problemsFromZod } from "../task/light.ts";
import { AuditedTaskSpec } from "./schema.ts";

/** A file's content: its bytes, or where to read them when it is scanned (so they are read by the thread that scans them, and held only while it does). */
export type FileContent = { bytes: Uint8Array } | { path: string; size: number };

export interface AuditInput {
  id: string;
  instruction: { file: string; bytes: Buffer };
  /** `name` is the path inside environment/ (and the sandbox work directory). */
  environment: Array<{ file: string; name: string; content: FileContent }>;
  artefact: { file: string; placedAt: string; text: string; canary?: string };
  /** Absent when the audit file is missing (a configuration error, never a silent pass). */
  audit?: { file: string; text: string };
}

/** Where files come from: the working tree, or the git index for `--staged`. Paths are project-relative. */
export interface FileSource {
  read(file: string): Buffer | undefined;
  /** The content of a file, read now or later (the working tree reads at scan time). */
  content(file: string): FileContent;
  /** Every file under a folder (recursively, dotfiles skipped), as paths relative to that folder. */
  list(dir: string): string[];
}

/** A file's size, or 0 when it cannot be read (the scan then says it is unreadable). */
function statSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

export function workingTree(paths: ProjectPaths): FileSource {
  return {
    read(file) {
      try {
        return readFileSync(path.join(paths.root, file));
      } catch {
        return undefined;
      }
    },
    content(file) {
      const abs = path.join(paths.root, file);
      return { path: abs, size: statSize(abs) };
    },
    list(dir) {
      const out: string[] = [];
      const walk = (abs: string, rel: string) => {
        let entries: import("node:fs").Dirent[];
        try {
          entries = readdirSync(abs, { withFileTypes: true });
        } catch {
          return;
        }
        for (const entry of entries) {
          if (entry.name.startsWith(".")) continue;
          const childRel = rel ? `${rel}/${entry.name}` : entry.name;
          if (entry.isDirectory()) walk(path.join(abs, entry.name), childRel);
          else if (entry.isFile()) out.push(childRel);
        }
      };
      walk(path.join(paths.root, dir), "");
      return out.sort();
    },
  };
}

export function readAuditInput(id: string, source: FileSource): { input?: AuditInput; problems: Problem[] } {
  const problems: Problem[] = [];
  const specFile = `tasks/${id}/task.json`;
  const specBytes = source.read(specFile);
  if (!specBytes) return { problems: [{ severity: "error", file: specFile, message: "file is missing" }] };
  const json = parseJsonText(specFile, specBytes.toString("utf8"));
  if (!json.ok) return { problems: [json.problem] };
  const spec = AuditedTaskSpec.safeParse(json.value);
  if (!spec.success) return { problems: problemsFromZod(specFile, spec.error) };

  const instructionFile = `tasks/${id}/instruction.md`;
  const artefactFile = `artefacts/${id}/artefact.md`;
  const auditFile = `audits/${id}.json`;
  const instruction = source.read(instructionFile);
  const artefact = source.read(artefactFile);
  const audit = source.read(auditFile);
  if (!instruction)
    problems.push({ severity: "error", file: instructionFile, message: "the instruction is missing" });
  if (!artefact) problems.push({ severity: "error", file: artefactFile, message: "the artefact is missing" });
  if (!audit) {
    problems.push({
      severity: "error",
      file: auditFile,
      message: "the leak-audit file is missing: every task declares what is gated (kgate new writes one)",
    });
  }
  if (!instruction || !artefact) return { problems };
  const envDir = `tasks/${id}/environment`;
  const environment = source.list(envDir).map((name) => ({
    file: `${envDir}/${name}`,
    name,
    content: source.content(`${envDir}/${name}`),
  }));
  const artefactText = artefact.toString("utf8");
  return {
    input: {
      id,
      instruction: { file: instructionFile, bytes: instruction },
      environment,
      artefact: {
        file: artefactFile,
        placedAt: spec.data.artefact.path,
        text: artefactText,
        canary: extractCanary(artefactText),
      },
      audit: audit ? { file: auditFile, text: audit.toString("utf8") } : undefined,
    },
    problems,
  };
}

/** The audit input of a task already loaded (and validated) by the task loader. */
export function inputFromLoadedTask(paths: ProjectPaths, task: LoadedTask): AuditInput {
  const rel = (abs: string) => path.relative(paths.root, abs).split(path.sep).join("/");
  let audit: AuditInput["audit"];
  try {
    audit = { file: rel(task.auditPath), text: readFileSync(task.auditPath, "utf8") };
  } catch {
    audit = undefined;
  }
  const artefactText = task.artefact.bytes.toString("utf8");
  return {
    id: task.id,
    instruction: { file: rel(path.join(task.dir, "instruction.md")), bytes: task.instruction },
    environment: task.environment.map((f) => ({
      file: rel(f.absPath),
      name: f.path,
      content: { path: f.absPath, size: statSize(f.absPath) },
    })),
    artefact: {
      file: rel(task.artefact.absPath),
      placedAt: task.spec.artefact.path,
      text: artefactText,
      canary: task.artefact.canary,
    },
    audit,
  };
}
