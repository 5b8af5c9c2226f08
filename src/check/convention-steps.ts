// Checks of the verifier's convention sets without Docker: every convention bears load on this
// task's data (the dead-rule check), and every set's answer fits the output contract.
import type { LoadedTask } from "../task/index.ts";
import { type ConventionSet, parseAnswers, solveRaw } from "../verify/index.ts";
import { conventionWeights } from "./dead-rules.ts";
import type { CheckStep } from "./types.ts";

export const deadRuleStep: CheckStep = {
  id: "dead-rules",
  needs: ["task", "verifier"],
  async run(context) {
    const weights = conventionWeights(context.task!, context.verifier!);
    const dead = weights.filter((w) => !w.loadBearing && !w.sameAsDefault).map((w) => w.name);
    const stated = weights.filter((w) => w.sameAsDefault).map((w) => w.name);
    const statedNote = stated.length > 0 ? `; stated as the default, not gated: ${stated.join(", ")}` : "";
    if (dead.length > 0) {
      return [
        {
          status: "fail",
          detail: `dead weight: ${dead.map((n) => `"${n}"`).join(", ")} set to the default change(s) no value of the answer (make the data exercise it, or drop it from the artefact and the verifier)${statedNote}`,
        },
      ];
    }
    const missed = weights.filter((w) => w.rubricFails === false).map((w) => `"${w.name}"`);
    if (missed.length > 0) {
      return [
        {
          status: "fail",
          detail: `the rubric passes the answer with ${missed.join(", ")} set to the default: its criteria miss values that convention changes (add a criterion that checks them)`,
        },
      ];
    }
    const shown = weights
      .filter((w) => !w.sameAsDefault)
      .map((w) => `${w.name} ${w.changedValues}`)
      .join(", ");
    const rubric = weights.some((w) => w.rubricFails) ? "; the rubric fails each changed answer" : "";
    return [
      {
        status: "pass",
        detail: `each gated convention changes the answer when set to its default (values changed: ${shown})${statedNote}${rubric}`,
      },
    ];
  },
};

/** Does `pattern` (pointer segments, `*` for any) reach at least one array in `value`? */
function reachesArray(value: unknown, pattern: readonly string[]): boolean {
  if (pattern.length === 0) return Array.isArray(value);
  if (typeof value !== "object" || value === null) return false;
  const [head, ...rest] = pattern;
  const children = head === "*" ? Object.values(value) : [(value as Record<string, unknown>)[head!]];
  return children.some((child) => reachesArray(child, rest));
}

/** keyedArrays pointers that match no array of the artefact's answer (the comparison would be ordered). */
function deadPointers(task: LoadedTask, answers: Record<string, unknown>): string[] {
  const dead: string[] = [];
  for (const output of task.spec.outputs) {
    if (output.format !== "json") continue;
    for (const pointer of Object.keys(output.compare.keyedArrays)) {
      const pattern = pointer === "" ? [] : pointer.slice(1).split("/");
      if (!reachesArray(answers[output.path], pattern))
        dead.push(
          `${output.path} compare.keyedArrays "${pointer}" matches no array of the artefact's answer`,
        );
    }
  }
  return dead;
}

export const contractStep: CheckStep = {
  id: "contract",
  needs: ["task", "verifier"],
  async run(context) {
    const task = context.task!;
    const loaded = context.verifier!;
    const sets: ConventionSet[] = [
      "artefact",
      "default",
      ...Object.keys(loaded.verifier.conventions.variants).map((n) => `variant:${n}` as const),
    ];
    const problems: string[] = [];
    for (const set of sets) {
      try {
        const answers = solveRaw(task, loaded, set);
        parseAnswers(task, loaded, set, answers);
        if (set === "artefact") problems.push(...deadPointers(task, answers));
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    if (problems.length > 0) return [{ status: "fail", detail: problems.join("; ") }];
    return [
      {
        status: "pass",
        detail: `the answers of ${sets.length} convention set(s) (${sets.join(", ")}) fit the output contract`,
      },
    ];
  },
};
