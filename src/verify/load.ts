// Imports verifiers/<id>.ts at run time and checks its default export against the task it belongs to.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { allowTypeScriptImport, fieldPath } from "../common/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { compiledVerifier, knowCompiled } from "./compiled.ts";
import { isJudgeCriterion, type Rubric, type TaskVerifier } from "./contract.ts";

/** The verifier module is missing, broken, or does not fit its task: names the file and the field. */
export class VerifierLoadError extends Error {
  override name = "VerifierLoadError";
}

export interface LoadedVerifier {
  /** Project-relative path of the module, for messages. */
  file: string;
  verifier: TaskVerifier<unknown>;
  rubricOf(outputPath: string): Rubric<unknown, unknown> | undefined;
}

const present = z.custom<unknown>((v) => v !== undefined, "required field missing");
const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", "must be a function");

const weight = z.number().positive().finite().optional();
const CodeCriterionShape = z.object({
  kind: z.literal("code").optional(),
  name: z.string().min(1),
  check: fn,
  weight,
});
const JudgeCriterionShape = z.object({
  kind: z.literal("judge"),
  name: z.string().min(1),
  judge: z.string().min(1, "names the agent configuration (kgate.config.json `agents`) that judges"),
  criterion: z.union([z.string().min(1), fn]),
  reads: z.array(z.string().min(1)).min(1).optional(),
  weight,
});

const VerifierShape = z.object({
  conventions: z.object({
    artefact: present,
    default: present,
    variants: z.record(z.string(), present),
  }),
  solve: fn,
  rubric: z
    .record(
      z.string(),
      z.object({
        criteria: z.array(z.union([CodeCriterionShape, JudgeCriterionShape])).min(1),
        render: fn.optional(),
        judgesAlone: z.boolean().optional(),
      }),
    )
    .optional(),
});

function projectRelative(task: LoadedTask, file: string): string {
  const root = path.dirname(path.dirname(task.dir));
  return path.relative(root, file).split(path.sep).join("/");
}

/** Problems of a well-shaped verifier against its task: variants and rubric outputs must line up. */
function mismatches(task: LoadedTask, verifier: TaskVerifier<unknown>): string[] {
  const problems: string[] = [];
  const taskFile = `tasks/${task.id}/task.json`;
  const declared = Object.keys(task.spec.artefact.variants);
  for (const name of declared) {
    if (!(name in verifier.conventions.variants)) {
      problems.push(`conventions.variants.${name}: missing for the variant declared in ${taskFile}`);
    }
  }
  for (const name of Object.keys(verifier.conventions.variants)) {
    if (!declared.includes(name))
      problems.push(`conventions.variants.${name}: no such variant in ${taskFile}`);
  }
  for (const [outputPath, rubric] of Object.entries(verifier.rubric ?? {})) {
    const output = task.spec.outputs.find((o) => o.path === outputPath);
    if (!output) problems.push(`rubric.${outputPath}: no such output in ${taskFile}`);
    else if (output.format === "text" && !rubric.render) {
      problems.push(
        `rubric.${outputPath}.render: required for a text output (kgate check renders answers with it)`,
      );
    } else if (output.format === "text" && rubric.judgesAlone !== undefined) {
      problems.push(
        `rubric.${outputPath}.judgesAlone: only for csv and json outputs (a text output with a rubric is judged by it alone)`,
      );
    }
    rubric.criteria.forEach((c, i) => {
      for (const read of (isJudgeCriterion(c) && c.reads) || []) {
        if (!task.spec.outputs.some((o) => o.path === read))
          problems.push(`rubric.${outputPath}.criteria.${i}.reads: "${read}" is no output of ${taskFile}`);
      }
    });
    const names = rubric.criteria.map((c) => c.name);
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate) problems.push(`rubric.${outputPath}.criteria: duplicate criterion name "${duplicate}"`);
  }
  return problems;
}

const cache = new Map<string, Promise<LoadedVerifier>>();
/** Verifier files this thread imports from a compiled module instead (compiled.ts). */
const compiledModules = new Map<string, string>();

/** From now on in this thread, `verifierPath` is imported from `compiledModule` (plain JavaScript). */
export function importVerifierFrom(verifierPath: string, compiledModule: string): void {
  compiledModules.set(verifierPath, compiledModule);
  knowCompiled(compiledModule);
}

/**
 * A module's default export. A verifier in a CommonJS package scope is compiled to CommonJS; imported
 * from plain JavaScript (the bundle) its namespace's default is the exports object, flagged
 * __esModule, holding the real default (tsx unwraps it when the importer is TypeScript).
 */
function defaultExport(module: Record<string, unknown>): unknown {
  const outer = module.default as { __esModule?: unknown; default?: unknown } | undefined;
  return outer !== null && typeof outer === "object" && outer.__esModule === true && "default" in outer
    ? outer.default
    : outer;
}

/**
 * From the bundle, the verifier compiled to plain JavaScript (compiled.ts, the module every
 * verification's worker imports too), so the process needs no TypeScript loader (tsx costs about
 * half a second of CPU to start); undefined from the sources (tsx is registered there) or when it
 * does not compile (the TypeScript import then reports what is wrong in its own words).
 */
function compiledHere(task: LoadedTask): Promise<string | undefined> {
  return import.meta.url.endsWith(".ts") ? Promise.resolve(undefined) : compiledVerifier(task);
}

async function importVerifier(task: LoadedTask): Promise<LoadedVerifier> {
  const file = projectRelative(task, task.verifierPath);
  let exported: unknown;
  try {
    const source = compiledModules.get(task.verifierPath) ?? (await compiledHere(task)) ?? task.verifierPath;
    await allowTypeScriptImport(source);
    exported = defaultExport(await import(pathToFileURL(source).href));
  } catch (err) {
    throw new VerifierLoadError(`${file}: could not be imported: ${(err as Error).message}`);
  }
  if (exported === undefined) {
    throw new VerifierLoadError(
      `${file}: has no default export (expected \`export default defineVerifier({ conventions, solve })\`)`,
    );
  }
  const shape = VerifierShape.safeParse(exported);
  if (!shape.success) {
    const lines = shape.error.issues.map(
      (i) => `${fieldPath(i.path)}: ${i.message.replace(/^Invalid input: /, "")}`,
    );
    throw new VerifierLoadError(`${file}: the default export is not a verifier: ${lines.join("; ")}`);
  }
  const verifier = exported as TaskVerifier<unknown>;
  const problems = mismatches(task, verifier);
  if (problems.length > 0) throw new VerifierLoadError(`${file}: ${problems.join("; ")}`);
  const rubrics = (verifier.rubric ?? {}) as Record<string, Rubric<unknown, unknown>>;
  return { file, verifier, rubricOf: (outputPath) => rubrics[outputPath] };
}

/**
 * Imports and checks a task's verifier (once per module file and task digest in this process).
 * Throws VerifierLoadError naming the file and the field when it is not a valid verifier.
 */
export function loadVerifier(task: LoadedTask): Promise<LoadedVerifier> {
  const key = `${task.verifierPath}\u0000${task.digests.task}`;
  let loading = cache.get(key);
  if (!loading) {
    loading = importVerifier(task);
    cache.set(key, loading);
    loading.catch(() => cache.delete(key));
  }
  return loading;
}
