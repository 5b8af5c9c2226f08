// `kgate new`: writes every place of a new task from templates, refusing to overwrite anything.
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { type OutputFormat, outputTemplate } from "./output-templates.ts";
import { type GateKind, Slug, type TaskSpecInput } from "./schema.ts";
import {
  artefactTemplate,
  auditTemplate,
  compressedTemplate,
  generatorTemplate,
  instructionTemplate,
  solutionTemplate,
  verifierTemplate,
} from "./templates.ts";

/** kgate's package root (found by its package.json, so this holds from src/ and from a bundle alike). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "kgate") return dir;
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`kgate's package.json was not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** A relative POSIX path from `fromDir` to `target`, starting with ./ or ../. */
function relativeFrom(fromDir: string, target: string): string {
  const relative = path.relative(fromDir, target).split(path.sep).join("/");
  return relative.startsWith(".") ? relative : `./${relative}`;
}

/**
 * The import specifier of the verification library (src/verify/index.ts, imported by every
 * scaffolded verifier) as seen from the project's verifiers/ folder.
 */
export function verifyImportFrom(verifiersDir: string): string {
  return relativeFrom(verifiersDir, path.join(packageRoot(), "src", "verify", "index.ts"));
}

/** The `$schema` reference of a scaffolded JSON file to kgate's schemas/<name> (editor support). */
function schemaRefFrom(fileDir: string, name: string): string {
  return relativeFrom(fileDir, path.join(packageRoot(), "schemas", name));
}

export interface ScaffoldOptions {
  id: string;
  gate: GateKind;
  title?: string;
  domain?: string;
  /** The format of the one output (default csv). */
  output?: OutputFormat;
}

export interface ScaffoldResult {
  created: string[];
  canary: string;
}

/** What a scaffolded file is, so that `kgate import` can replace some of them. */
export type ScaffoldRole =
  | "task"
  | "instruction"
  | "environment"
  | "generator"
  | "solution"
  | "artefact"
  | "perturbed"
  | "compressed"
  | "verifier"
  | "audit";

export interface ScaffoldFile {
  role: ScaffoldRole;
  /** Absolute path in the project. */
  file: string;
  content: string;
  mode?: number;
}

export interface ScaffoldPlan {
  files: ScaffoldFile[];
  canary: string;
  /** Spec of task.json (also in files, serialised). */
  spec: TaskSpecInput;
}

/** The files of a new task and their contents, written nowhere; throws when the id is taken or invalid. */
export function scaffoldPlan(paths: ProjectPaths, options: ScaffoldOptions): ScaffoldPlan {
  const id = Slug.safeParse(options.id);
  if (!id.success) throw new Error(`invalid task id "${options.id}": ${id.error.issues[0]?.message}`);
  const taskDir = path.join(paths.tasks, options.id);
  const artefactDir = path.join(paths.artefacts, options.id);
  const verifier = path.join(paths.verifiers, `${options.id}.ts`);
  const audit = path.join(paths.audits, `${options.id}.json`);
  const clashes = [taskDir, artefactDir, verifier, audit].filter((p) => existsSync(p));
  if (clashes.length > 0) {
    throw new Error(
      `task "${options.id}" already exists (${clashes.map((p) => relativeToProject(paths, p)).join(", ")}); nothing was written`,
    );
  }

  const canary = randomUUID();
  const output = outputTemplate(options.output ?? "csv");
  const spec: TaskSpecInput = {
    $schema: schemaRefFrom(taskDir, "task.schema.json"),
    id: options.id,
    title: options.title ?? `TODO: title of ${options.id}`,
    gate: options.gate,
    domain: options.domain ?? "TODO-domain",
    artefact: {
      path: "docs/internal/specification.md",
      description: "The established internal specification for this task",
      variants: {
        perturbed: { kind: "perturbed", description: "plausible but wrong conventions" },
        compressed: { kind: "compressed", description: "the same conventions in far fewer bytes" },
      },
    },
    outputs: [output.spec],
    limits: { timeoutSec: 900, maxTurns: 50, maxTokens: 500000, cpus: 1, memoryMb: 1024, pids: 256 },
  };

  const files: ScaffoldFile[] = [
    { role: "task", file: path.join(taskDir, "task.json"), content: `${JSON.stringify(spec, null, 2)}\n` },
    {
      role: "instruction",
      file: path.join(taskDir, "instruction.md"),
      content: instructionTemplate(options.gate, output),
    },
    {
      role: "environment",
      file: path.join(taskDir, "environment", "input.csv"),
      content: "item,quantity\nwidget,3\ngadget,5\n",
    },
    {
      role: "generator",
      file: path.join(taskDir, "generate.py"),
      content: generatorTemplate(options.id),
      mode: 0o755,
    },
    {
      role: "solution",
      file: path.join(taskDir, "solution", "solve.sh"),
      content: solutionTemplate(spec.artefact.path, output),
      mode: 0o755,
    },
    {
      role: "artefact",
      file: path.join(artefactDir, "artefact.md"),
      content: artefactTemplate(options.id, canary, options.gate),
    },
    {
      role: "perturbed",
      file: path.join(artefactDir, "variants", "perturbed.md"),
      content: artefactTemplate(options.id, canary, options.gate, true),
    },
    {
      role: "compressed",
      file: path.join(artefactDir, "variants", "compressed.md"),
      content: compressedTemplate(options.id, canary),
    },
    {
      role: "verifier",
      file: verifier,
      content: verifierTemplate(options.id, verifyImportFrom(paths.verifiers), output),
    },
    { role: "audit", file: audit, content: auditTemplate(schemaRefFrom(paths.audits, "audit.schema.json")) },
  ];
  return { files, canary, spec };
}

/** Writes each file of a plan (never over an existing one). */
export function writeScaffoldFiles(files: readonly Pick<ScaffoldFile, "file" | "content" | "mode">[]): void {
  for (const { file, content, mode } of files) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content, { flag: "wx", mode });
  }
}

export function scaffoldTask(paths: ProjectPaths, options: ScaffoldOptions): ScaffoldResult {
  const plan = scaffoldPlan(paths, options);
  writeScaffoldFiles(plan.files);
  return { created: plan.files.map(({ file }) => relativeToProject(paths, file)), canary: plan.canary };
}
