// Loads tasks from disk: validates task.json, reads instruction, environment, artefact and variants,
// computes digests, and reports every problem with its file and field instead of throwing.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { extractCanary } from "./canary.ts";
import { sha256 } from "./digest.ts";
import { DEFAULT_ENVIRONMENT_FILE_MB, listEnvironment } from "./environment-files.ts";
import { listFiles, listTaskIds, noTaskMessage } from "./listing.ts";
import { formatProblem, type Problem, parseJsonText, problemsFromZod } from "./problems.ts";
import { checkSizeRules } from "./rules.ts";
import { diskMbOf, TaskSpec, type VariantKind } from "./schema.ts";
import { computeDigests, type TaskDigests } from "./task-digests.ts";

export interface EnvironmentFile {
  /** POSIX path relative to environment/ (and to the sandbox work directory). */
  path: string;
  absPath: string;
  size: number;
  sha256: string;
}

export interface ArtefactFile {
  absPath: string;
  bytes: Buffer;
  sha256: string;
}

export interface VariantFile extends ArtefactFile {
  name: string;
  kind: VariantKind;
}

export interface LoadedTask {
  id: string;
  dir: string;
  spec: TaskSpec;
  instruction: Buffer;
  environment: EnvironmentFile[];
  solutionDir: string;
  artefact: ArtefactFile & { canary?: string };
  variants: VariantFile[];
  verifierPath: string;
  auditPath: string;
  digests: TaskDigests;
  warnings: Problem[];
}

export type TaskLoadResult =
  | { ok: true; id: string; task: LoadedTask; warnings: Problem[] }
  | { ok: false; id: string; errors: Problem[]; warnings: Problem[] };

function readArtefact(absPath: string): ArtefactFile {
  const bytes = readFileSync(absPath);
  return { absPath, bytes, sha256: sha256(bytes) };
}

export function loadTask(paths: ProjectPaths, id: string): TaskLoadResult {
  const dir = path.join(paths.tasks, id);
  const rel = (f: string) => relativeToProject(paths, f);
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const fail = () => ({ ok: false as const, id, errors, warnings });

  const specFile = path.join(dir, "task.json");
  if (!existsSync(specFile)) {
    errors.push({ severity: "error", file: rel(specFile), message: "file is missing" });
    return fail();
  }
  const json = parseJsonText(rel(specFile), readFileSync(specFile, "utf8"));
  if (!json.ok) {
    errors.push(json.problem);
    return fail();
  }
  const parsed = TaskSpec.safeParse(json.value);
  if (!parsed.success) {
    errors.push(...problemsFromZod(rel(specFile), parsed.error));
    return fail();
  }
  const spec = parsed.data;
  if (spec.id !== id) {
    errors.push({
      severity: "error",
      file: rel(specFile),
      field: "id",
      message: `"${spec.id}" does not match the folder name "${id}"`,
    });
  }

  const instructionFile = path.join(dir, "instruction.md");
  const environmentDir = path.join(dir, "environment");
  const solutionDir = path.join(dir, "solution");
  const artefactDir = path.join(paths.artefacts, id);
  const artefactFile = path.join(artefactDir, "artefact.md");
  const verifierPath = path.join(paths.verifiers, `${id}.ts`);
  const auditPath = path.join(paths.audits, `${id}.json`);

  const required: Array<[string, string]> = [
    [instructionFile, "the instruction is missing (tasks/<id>/instruction.md)"],
    [artefactFile, "the artefact is missing (artefacts/<id>/artefact.md)"],
    [verifierPath, "the verifier is missing (verifiers/<id>.ts)"],
    [auditPath, "the leak-audit file is missing (audits/<id>.json)"],
  ];
  for (const [file, message] of required) {
    if (!existsSync(file)) errors.push({ severity: "error", file: rel(file), message });
  }
  if (!existsSync(solutionDir) || listFiles(solutionDir).length === 0) {
    errors.push({
      severity: "error",
      file: rel(solutionDir),
      message: "the oracle solution folder is missing or empty",
    });
  }
  if (errors.length > 0) return fail();

  const listing = listEnvironment(
    environmentDir,
    rel,
    spec.limits.environmentFileMb ?? DEFAULT_ENVIRONMENT_FILE_MB,
  );
  if (listing.errors.length > 0) {
    errors.push(...listing.errors);
    return fail();
  }
  const environment: EnvironmentFile[] = listing.files.map((p) => {
    const absPath = path.join(environmentDir, p);
    const bytes = readFileSync(absPath);
    return { path: p, absPath, size: bytes.length, sha256: sha256(bytes) };
  });
  const environmentBytes = environment.reduce((sum, f) => sum + f.size, 0);
  const diskMb = diskMbOf(spec.limits);
  if (environmentBytes > diskMb * 1024 * 1024) {
    errors.push({
      severity: "error",
      file: rel(specFile),
      field: "limits.diskMb",
      message: `environment/ holds ${environmentBytes} bytes, over the sandbox's disk of ${diskMb} MiB (it is copied into the agent's home, a tmpfs of limits.diskMb, default half of memoryMb): raise limits.diskMb with memoryMb`,
    });
  }
  if (environment.some((f) => f.path === spec.artefact.path)) {
    errors.push({
      severity: "error",
      file: rel(specFile),
      field: "artefact.path",
      message: `"${spec.artefact.path}" collides with an environment file of the same path`,
    });
  }
  for (const output of spec.outputs) {
    if (output.path === spec.artefact.path) {
      errors.push({
        severity: "error",
        file: rel(specFile),
        field: "outputs",
        message: `output "${output.path}" is the artefact path`,
      });
    }
  }

  const artefactBase = readArtefact(artefactFile);
  const artefact = { ...artefactBase, canary: extractCanary(artefactBase.bytes.toString("utf8")) };
  if (!artefact.canary) {
    warnings.push({
      severity: "warning",
      file: rel(artefactFile),
      message: "no canary GUID found (expected an HTML comment <!-- kgate-canary: <guid> -->, or any GUID)",
    });
  }

  const variantsDir = path.join(artefactDir, "variants");
  const variantFiles = listFiles(variantsDir).filter((f) => f.endsWith(".md") && !f.includes("/"));
  const variants: VariantFile[] = [];
  for (const [name, decl] of Object.entries(spec.artefact.variants)) {
    const absPath = path.join(variantsDir, `${name}.md`);
    if (!existsSync(absPath)) {
      errors.push({
        severity: "error",
        file: rel(specFile),
        field: `artefact.variants.${name}`,
        message: `declared variant has no file ${rel(absPath)}`,
      });
      continue;
    }
    variants.push({ name, kind: decl.kind, ...readArtefact(absPath) });
  }
  for (const file of variantFiles) {
    const name = file.slice(0, -".md".length);
    if (!(name in spec.artefact.variants)) {
      warnings.push({
        severity: "warning",
        file: rel(path.join(variantsDir, file)),
        message: `variant "${name}" is not declared in tasks/${id}/task.json artefact.variants (it is ignored)`,
      });
    }
  }

  const instruction = readFileSync(instructionFile);
  const rules = checkSizeRules({
    instruction: instruction.toString("utf8"),
    instructionFile: rel(instructionFile),
    artefactFile: rel(artefactFile),
    artefactSize: artefact.bytes.length,
    artefactPath: spec.artefact.path,
  });
  errors.push(...rules.filter((p) => p.severity === "error"));
  warnings.push(...rules.filter((p) => p.severity === "warning"));
  if (errors.length > 0) return fail();

  const solutionFiles = listFiles(solutionDir).map((p) => ({
    path: p,
    sha256: sha256(readFileSync(path.join(solutionDir, p))),
  }));
  const digests = computeDigests({
    specBytes: readFileSync(specFile),
    instruction,
    environment,
    solution: solutionFiles,
    verifier: readFileSync(verifierPath),
    audit: readFileSync(auditPath),
    artefact: artefact.sha256,
    variants: Object.fromEntries(variants.map((v) => [v.name, v.sha256])),
  });

  const task: LoadedTask = {
    id,
    dir,
    spec,
    instruction,
    environment,
    solutionDir,
    artefact,
    variants,
    verifierPath,
    auditPath,
    digests,
    warnings,
  };
  return { ok: true, id, task, warnings };
}

/** Every task's result; a task that cannot even be read (permissions, I/O) is an invalid entry. */
export function loadAllTasks(paths: ProjectPaths): TaskLoadResult[] {
  return listTaskIds(paths).map((id) => {
    try {
      return loadTask(paths, id);
    } catch (err) {
      const file = relativeToProject(paths, path.join(paths.tasks, id));
      const message = `could not be read: ${err instanceof Error ? err.message : String(err)}`;
      return {
        ok: false as const,
        id,
        errors: [{ severity: "error" as const, file, message }],
        warnings: [],
      };
    }
  });
}

/** Load one task or throw an Error whose message lists every problem (for commands that need it valid). */
export function loadValidTask(paths: ProjectPaths, id: string): LoadedTask {
  if (!existsSync(path.join(paths.tasks, id))) throw new Error(noTaskMessage(paths, [id]));
  const result = loadTask(paths, id);
  if (result.ok) return result.task;
  throw new Error(
    `task "${id}" is invalid:\n${result.errors.map((p) => `  ${formatProblem(p)}`).join("\n")}`,
  );
}
