// `kgate import harbor <dir>`: a Harbor task folder as a kgate task skeleton. The instruction
// (bytes unchanged), the files the Dockerfile copies into its WORKDIR (at their paths there), the
// solution and task.toml's limits become the kgate task; the Dockerfile, other context files, tests/
// and task.toml are kept under tasks/<id>/harbor/ (outside environment/, so never in a sandbox);
// the verifier is a stub that says what is left to write.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { listFiles, Slug, scaffoldTask, TaskSpec, verifyImportFrom } from "../task/index.ts";
import { workdirCopies } from "./dockerfile-copies.ts";
import { HarborTaskError, type HarborTaskToml, harborNetwork, readHarborToml } from "./harbor-toml.ts";

/** Files of Harbor's environment/ that build the image rather than hold data. */
const BUILD_FILES = new Set(["Dockerfile", "docker-compose.yaml", "docker-compose.yml", ".dockerignore"]);
/** Harbor's TaskPaths.is_valid: what a task folder must hold. */
const REQUIRED = ["task.toml", "instruction.md", "environment", "tests/test.sh"];

export interface ImportResult {
  id: string;
  taskDir: string;
  /** Environment files that became the kgate task's data: context path -> work-directory path. */
  environment: Array<{ from: string; to: string }>;
  /** Build files and tests kept for reference under tasks/<id>/harbor/. */
  kept: string[];
  warnings: string[];
}

function importTaskId(dir: string): string {
  return path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63);
}

/** The first symbolic link under `dir` (a third party's folder: links could pull host files in). */
function firstLink(dir: string): string | null {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) return abs;
    const inner = entry.isDirectory() ? firstLink(abs) : null;
    if (inner) return inner;
  }
  return null;
}

function stubVerifier(id: string, verifyImport: string): string {
  return `// Verifier stub for ${id}, imported from a Harbor task: Harbor judged it with
// tasks/${id}/harbor/tests/test.sh inside the agent's container. A kgate verifier is a pure function
// of the environment data and a set of conventions, run on the host: write the reference solver,
// declare the outputs in tasks/${id}/task.json, and replace this stub. Until then every trial is
// unverified with this message.
import { defineVerifier } from "${verifyImport}";

export default defineVerifier<Record<string, never>>({
  conventions: { artefact: {}, default: {}, variants: { perturbed: {} } },
  solve() {
    throw new Error("verifiers/${id}.ts is a stub imported from Harbor: port tasks/${id}/harbor/tests/test.sh");
  },
});
`;
}

function specFrom(spec: TaskSpec, config: HarborTaskToml, id: string): TaskSpec {
  const env = config.environment ?? {};
  return {
    ...spec,
    title: config.task?.description?.trim() || `Imported Harbor task ${config.task?.name ?? id}`,
    domain: typeof config.metadata?.category === "string" ? config.metadata.category : "imported from Harbor",
    limits: {
      ...spec.limits,
      timeoutSec: config.agent?.timeout_sec ?? spec.limits.timeoutSec,
      cpus: env.cpus ?? spec.limits.cpus,
      memoryMb: env.memory_mb ?? spec.limits.memoryMb,
    },
    solution: { command: 'bash "$KGATE_SOLUTION_DIR/solve.sh"' },
    network: harborNetwork(config),
  };
}

export function importHarborTask(paths: ProjectPaths, dir: string, idOption?: string): ImportResult {
  const source = path.resolve(dir);
  const missing = REQUIRED.filter((f) => !existsSync(path.join(source, f)));
  if (missing.length > 0) {
    throw new HarborTaskError(`${source} is not a Harbor task folder: missing ${missing.join(", ")}`);
  }
  const link = firstLink(source);
  if (link) throw new HarborTaskError(`${link} is a symbolic link; a task folder to import must hold none`);
  const tomlFile = path.join(source, "task.toml");
  const config = readHarborToml(tomlFile, readFileSync(tomlFile, "utf8"));
  const id = idOption ?? importTaskId(source);
  const slug = Slug.safeParse(id);
  if (!slug.success)
    throw new HarborTaskError(`invalid task id "${id}": ${slug.error.issues[0]?.message} (use --id)`);

  const envDir = path.join(source, "environment");
  const sourceFiles = listFiles(envDir);
  const dockerfile = path.join(envDir, "Dockerfile");
  const data = existsSync(dockerfile) ? workdirCopies(readFileSync(dockerfile, "utf8"), sourceFiles) : [];
  const copied = new Set(data.map((d) => d.from));
  const keptContext = sourceFiles.filter((f) => !copied.has(f));
  const warnings: string[] = [];
  const unplaced = keptContext.filter((f) => !BUILD_FILES.has(f));
  if (unplaced.length > 0) {
    warnings.push(
      `${unplaced.length} file(s) of environment/ are not copied into the Dockerfile's WORKDIR by a plain COPY (kept under harbor/environment/): ${unplaced.slice(0, 5).join(", ")}${unplaced.length > 5 ? ", ..." : ""}`,
    );
  }
  if (sourceFiles.some((f) => BUILD_FILES.has(f))) {
    warnings.push(
      "the Dockerfile is kept under harbor/environment/; kgate's sandbox image does not build it",
    );
  }
  if (!existsSync(path.join(source, "solution", "solve.sh"))) {
    warnings.push(`no solution/solve.sh: the oracle will fail until tasks/${id}/solution/solve.sh exists`);
  }

  scaffoldTask(paths, { id, gate: "convention" });
  const taskDir = path.join(paths.tasks, id);
  writeFileSync(path.join(taskDir, "instruction.md"), readFileSync(path.join(source, "instruction.md")));
  rmSync(path.join(taskDir, "environment"), { recursive: true, force: true });
  for (const { from, to } of data) cpSync(path.join(envDir, from), path.join(taskDir, "environment", to));
  rmSync(path.join(taskDir, "solution"), { recursive: true, force: true });
  if (existsSync(path.join(source, "solution"))) {
    cpSync(path.join(source, "solution"), path.join(taskDir, "solution"), { recursive: true });
  }
  const kept = ["task.toml", "tests", ...keptContext.map((f) => `environment/${f}`)];
  for (const f of kept) cpSync(path.join(source, f), path.join(taskDir, "harbor", f), { recursive: true });

  const specFile = path.join(taskDir, "task.json");
  const spec = TaskSpec.parse(JSON.parse(readFileSync(specFile, "utf8")));
  writeFileSync(specFile, `${JSON.stringify(specFrom(spec, config, id), null, 2)}\n`);
  writeFileSync(path.join(paths.verifiers, `${id}.ts`), stubVerifier(id, verifyImportFrom(paths.verifiers)));
  if (statSync(path.join(source, "instruction.md")).size === 0) warnings.push("instruction.md is empty");
  return { id, taskDir: relativeToProject(paths, taskDir), environment: data, kept, warnings };
}
