// Checks that need neither the verifier nor Docker: the task loads, and its condition file sets
// are consistent (+A is -A plus exactly the artefact; each variant likewise, at the same path).
import { type Condition, conditionFileSet, formatProblem, type LoadedTask, loadTask } from "../task/index.ts";
import type { CheckStep, StepOutcome } from "./types.ts";

export const schemaStep: CheckStep = {
  id: "schema",
  needs: [],
  async run(context) {
    const result = loadTask(context.paths, context.id);
    const warnings = result.warnings.map(formatProblem);
    if (!result.ok) {
      return [{ status: "fail", detail: [...result.errors.map(formatProblem), ...warnings].join("; ") }];
    }
    context.task = result.task;
    const variants = result.task.variants.map((v) => `${v.name} (${v.kind})`).join(", ") || "none";
    const warned = warnings.length > 0 ? `; warnings: ${warnings.join("; ")}` : "";
    return [{ status: "pass", detail: `task.json and every file valid; variants: ${variants}${warned}` }];
  },
};

/** Problems of one condition's file set against -A plus the placed artefact. */
function fileSetProblems(task: LoadedTask, condition: Condition, expectedSha: string): string[] {
  const without = conditionFileSet(task, "-A");
  const withA = conditionFileSet(task, condition);
  const problems: string[] = [];
  const base = new Map(without.files.map((f) => [f.path, f.sha256]));
  const extra = withA.files.filter((f) => base.get(f.path) !== f.sha256);
  const lost = without.files.filter(
    (f) => !withA.files.some((g) => g.path === f.path && g.sha256 === f.sha256),
  );
  if (lost.length > 0) problems.push(`${condition} lacks ${lost.map((f) => f.path).join(", ")}`);
  if (extra.length !== 1 || extra[0]!.path !== task.spec.artefact.path || extra[0]!.sha256 !== expectedSha) {
    problems.push(
      `${condition} adds ${extra.map((f) => f.path).join(", ") || "nothing"} instead of exactly ${task.spec.artefact.path}`,
    );
  }
  if (withA.artefactDigest !== expectedSha) problems.push(`${condition} records the wrong artefact digest`);
  return problems;
}

export const digestStep: CheckStep = {
  id: "digests",
  needs: ["task"],
  async run(context): Promise<StepOutcome[]> {
    const task = context.task!;
    const problems: string[] = [];
    const minus = conditionFileSet(task, "-A");
    if (minus.digest !== task.digests.environment)
      problems.push("-A file-set digest differs from the environment digest");
    if (minus.artefactDigest !== null) problems.push("-A places an artefact");
    problems.push(...fileSetProblems(task, "+A", task.digests.artefact));
    for (const variant of task.variants) {
      problems.push(
        ...fileSetProblems(task, `variant:${variant.name}`, task.digests.variants[variant.name]!),
      );
      if (variant.sha256 === task.artefact.sha256)
        problems.push(`variant ${variant.name} is byte-identical to the artefact`);
    }
    if (problems.length > 0) return [{ status: "fail", detail: problems.join("; ") }];
    const variants = task.variants.length > 0 ? `; ${task.variants.length} variant(s) likewise` : "";
    return [
      {
        status: "pass",
        detail: `+A = -A (${minus.files.length} file(s)) + ${task.spec.artefact.path}${variants}; one instruction for every condition`,
      },
    ];
  },
};
