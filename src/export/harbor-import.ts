// `kgate import harbor <dir>`: a Harbor (or BenchFlow) task folder as a kgate task skeleton. The
// folder is read defensively (import-source.ts: no special file, link or oversized file is opened);
// the instruction (bytes unchanged), the files the Dockerfile copies into its WORKDIR (at their paths
// there), the solution and the config's limits become the kgate task; the task's skills are proposed
// as its artefact; the output paths its instruction names become the output contract; the
// Dockerfile, other context files and the tests are kept under tasks/<id>/harbor/ (never in a
// sandbox); the verifier is a stub naming what is left to write. Everything is written into a
// staging folder and moved into place once complete (import-stage.ts).
import { lstatSync } from "node:fs";
import path from "node:path";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import {
  diskMbOf,
  type ScaffoldFile,
  Slug,
  scaffoldPlan,
  TaskSpec,
  verifyImportFrom,
} from "../task/index.ts";
import { finalWorkdir, workdirCopies } from "./dockerfile-copies.ts";
import { HarborTaskError, type HarborTaskToml, harborNetwork } from "./harbor-toml.ts";
import { readLayout } from "./import-layout.ts";
import { outputsOf } from "./import-outputs.ts";
import { artefactCandidate, isSkillFile, skillFiles } from "./import-skills.ts";
import { readSourceFile, type SourceFile, scanSource } from "./import-source.ts";
import { type StagedFile, writeStaged } from "./import-stage.ts";
import { auditStub, stubVerifier, variantStub } from "./import-stubs.ts";

/** Files of Harbor's environment/ that build the image rather than hold data. */
const BUILD_FILES = new Set(["Dockerfile", "docker-compose.yaml", "docker-compose.yml", ".dockerignore"]);
const KGATE_WORKDIR = "/home/agent/work";

export interface ImportResult {
  id: string;
  taskDir: string;
  /** harbor (task.toml + instruction.md) or benchflow (task.md). */
  layout: "harbor" | "benchflow";
  /** Environment files that became the kgate task's data: context path -> work-directory path. */
  environment: Array<{ from: string; to: string }>;
  /** The artefact candidate made of the task's skills (null: none, the template stays). */
  artefact: { path: string; skills: string[] } | null;
  /** Outputs declared from the instruction's paths (work-directory paths). */
  outputs: string[];
  /** Build files, tests and other files kept for reference under tasks/<id>/harbor/. */
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

const shown = (items: readonly string[], n = 5) =>
  `${items.slice(0, n).join(", ")}${items.length > n ? `, ... (${items.length} in all)` : ""}`;

export function importHarborTask(paths: ProjectPaths, dir: string, idOption?: string): ImportResult {
  const source = path.resolve(dir);
  const top = lstatSync(source, { throwIfNoEntry: false });
  if (!top?.isDirectory()) throw new HarborTaskError(`${source} is not a folder`);
  const files = scanSource(source);
  const layout = readLayout(source, files);
  const id = idOption ?? importTaskId(source);
  const slug = Slug.safeParse(id);
  if (!slug.success)
    throw new HarborTaskError(`invalid task id "${id}": ${slug.error.issues[0]?.message} (use --id)`);
  const plan = scaffoldPlan(paths, { id, gate: "convention" });
  const planned = (role: ScaffoldFile["role"]) => plan.files.find((f) => f.role === role)!;
  const taskDir = path.dirname(planned("task").file);
  const warnings = [...layout.warnings];

  // The build context: data copied into WORKDIR, the skills (knowledge), the rest kept aside.
  const context = files.filter((f) => f.path.startsWith("environment/"));
  const contextPath = (f: SourceFile) => f.path.slice("environment/".length);
  const contextFiles = context.map(contextPath);
  const dockerfileText = contextFiles.includes("Dockerfile")
    ? readSourceFile(path.join(source, "environment", "Dockerfile")).toString("utf8")
    : "";
  const candidates = contextFiles.filter((f) => !isSkillFile(f) && !BUILD_FILES.has(f));
  let workdir: string;
  let data: ReturnType<typeof workdirCopies>;
  try {
    workdir = finalWorkdir(dockerfileText);
    data = dockerfileText ? workdirCopies(dockerfileText, candidates) : [];
  } catch (err) {
    throw new HarborTaskError(`${path.join(source, "environment")}/${(err as Error).message}`);
  }
  const copied = new Set(data.map((d) => d.from));
  const unplaced = candidates.filter((f) => !copied.has(f));
  if (unplaced.length > 0) {
    warnings.push(
      `${unplaced.length} file(s) of environment/ are not copied into the Dockerfile's WORKDIR by a plain COPY (kept under harbor/environment/): ${shown(unplaced)}`,
    );
  }
  if (contextFiles.some((f) => BUILD_FILES.has(f))) {
    warnings.push(
      "the Dockerfile is kept under harbor/environment/; kgate's sandbox image does not build it",
    );
  }

  const skills = skillFiles(contextFiles).map((file) => ({
    file,
    text: readSourceFile(path.join(source, "environment", file)).toString("utf8"),
  }));
  const candidate = artefactCandidate(skills, plan.canary);
  if (candidate) {
    const others = contextFiles.filter((f) => isSkillFile(f) && !skills.some((s) => s.file === f));
    warnings.push(
      `the task's ${skills.length} skill(s) (${shown(candidate.skills)}) are its knowledge, not data: proposed as the artefact candidate artefacts/${id}/artefact.md (placed at ${candidate.path}); condense it into the conventions the task gates (the curator's step)${others.length > 0 ? `; other skill files kept under harbor/environment/: ${shown(others)}` : ""}`,
    );
  }

  // Task size limits, as a loaded task has them: each file (scanSource) and the whole environment.
  const sizes = new Map(context.map((f) => [contextPath(f), f.size]));
  const spec0 = specFrom(TaskSpec.parse(plan.spec), layout.config, id);
  const dataBytes = data.reduce((sum, d) => sum + (sizes.get(d.from) ?? 0), 0);
  const diskMb = diskMbOf(spec0.limits);
  if (dataBytes > diskMb * 1024 * 1024) {
    throw new HarborTaskError(
      `${source}/environment: the data copied into WORKDIR is ${dataBytes} bytes, over the task's disk of ${diskMb} MiB (limits.diskMb, half of memoryMb unless set)`,
    );
  }

  // Outputs: the absolute paths the instruction names that are not data files.
  const instructionText = layout.instruction.toString("utf8");
  const inputs = new Set(data.map((d) => path.posix.join(workdir, d.to)));
  const mapping = outputsOf(instructionText, workdir, inputs);
  if (mapping.absolutePaths.length > 0) {
    const declared = mapping.mapped.map((m) => `${m.relative} (from ${m.absolute})`);
    warnings.push(
      `instruction.md names absolute paths (${shown(mapping.absolutePaths)}); kgate's agent works in ${KGATE_WORKDIR}, the image's WORKDIR was ${workdir}${declared.length > 0 ? `; outputs declared relative to it: ${shown(declared)}` : ""}; the instruction is kept byte for byte: rewrite its paths relative to the working directory (the curator's step)`,
    );
  }
  if (mapping.outputs.length === 0) {
    warnings.push(
      `no output path found in the instruction: tasks/${id}/task.json keeps kgate new's template output (${plan.spec.outputs.map((o) => o.path).join(", ")}); declare the task's outputs (the curator's step)`,
    );
  }
  if (!layout.solution || !files.some((f) => f.path === `${layout.solution}/solve.sh`)) {
    warnings.push(
      `no ${layout.solution ?? "solution"}/solve.sh: the oracle will fail until tasks/${id}/solution/solve.sh exists`,
    );
  }
  if (layout.instruction.length === 0) warnings.push("instruction.md is empty");

  const spec = TaskSpec.parse({
    ...spec0,
    ...(candidate
      ? { artefact: { ...spec0.artefact, path: candidate.path, description: candidate.description } }
      : {}),
    ...(mapping.outputs.length > 0 ? { outputs: mapping.outputs } : {}),
  });
  const solutionFiles = layout.solution ? files.filter((f) => f.path.startsWith(`${layout.solution}/`)) : [];
  const keptContext = contextFiles.filter((f) => !copied.has(f));
  const keptFiles = files.filter(
    (f) =>
      layout.kept.some((k) => f.path === k || f.path.startsWith(`${k}/`)) ||
      (f.path.startsWith("environment/") && keptContext.includes(contextPath(f))),
  );
  const read = (rel: string) => readSourceFile(path.join(source, rel));
  const staged: StagedFile[] = [
    { file: planned("task").file, bytes: `${JSON.stringify(spec, null, 2)}\n` },
    { file: planned("instruction").file, bytes: layout.instruction },
    ...data.map((d) => ({
      file: path.join(taskDir, "environment", ...d.to.split("/")),
      bytes: read(`environment/${d.from}`),
    })),
    ...solutionFiles.map((f) => ({
      file: path.join(taskDir, "solution", ...f.path.slice(layout.solution!.length + 1).split("/")),
      bytes: read(f.path),
      mode: f.mode & 0o111 ? 0o755 : 0o644,
    })),
    ...keptFiles.map((f) => ({
      file: path.join(taskDir, "harbor", ...f.path.split("/")),
      bytes: read(f.path),
    })),
    { file: planned("artefact").file, bytes: candidate ? candidate.text : planned("artefact").content },
    { file: planned("perturbed").file, bytes: variantStub("perturbed", plan.canary) },
    { file: planned("compressed").file, bytes: variantStub("compressed", plan.canary) },
    {
      file: planned("verifier").file,
      bytes: stubVerifier(id, verifyImportFrom(paths.verifiers), Object.keys(spec.artefact.variants)),
    },
    { file: planned("audit").file, bytes: auditStub(JSON.parse(planned("audit").content).$schema) },
  ];
  writeStaged(paths, id, staged);
  return {
    id,
    taskDir: relativeToProject(paths, taskDir),
    layout: layout.kind,
    environment: data,
    artefact: candidate ? { path: candidate.path, skills: candidate.skills } : null,
    outputs: mapping.outputs.map((o) => String(o.path)),
    kept: [
      ...layout.kept.filter((k) => files.some((f) => f.path === k || f.path.startsWith(`${k}/`))),
      ...keptContext.map((f) => `environment/${f}`),
    ],
    warnings,
  };
}
