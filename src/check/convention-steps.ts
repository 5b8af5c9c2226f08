// Checks of the verifier's convention sets without Docker: every convention bears load on this
// task's data (the dead-rule check), and every set's answer fits the output contract.
import type { LoadedTask } from "../task/index.ts";
import { type ConventionSet, parseAnswers, solveRaw } from "../verify/index.ts";
import { conventionWeights } from "./dead-rules.ts";
import { holesOf, rubricHoles } from "./rubric-holes.ts";
import type { CheckStep, StepOutcome } from "./types.ts";

export const deadRuleStep: CheckStep = {
  id: "dead-rules",
  needs: ["task", "verifier"],
  async run(context) {
    const weights = conventionWeights(context.task!, context.verifier!);
    const gated = weights.filter((w) => !w.sameAsDefault);
    const unread = gated.filter((w) => !w.read).map((w) => `"${w.name}"`);
    const dead = gated.filter((w) => w.read && !w.loadBearing).map((w) => w.name);
    const stated = weights.filter((w) => w.sameAsDefault).map((w) => w.name);
    const statedNote = stated.length > 0 ? `; stated as the default, not gated: ${stated.join(", ")}` : "";
    if (unread.length > 0) {
      return [
        {
          status: "fail",
          detail: `the verifier never reads ${unread.join(", ")}: ${context.verifier!.file} solve() does not look at that convention, so no data can make it count (read it in solve(), or drop it from the conventions and the artefact)`,
        },
      ];
    }
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
    const detail = `each gated convention changes the answer when set to its default (values changed: ${shown})${statedNote}`;
    return [await rubricOutcome(context.task!, context.verifier!, detail)];
  },
};

/**
 * The rubric's part of the dead-rule step (outputs judged by their rubric alone): the default
 * answer and each perturbed variant's must fail it too, and a criterion that passes every wrong
 * deliverable is named (a warning: it checks nothing a convention changes).
 */
async function rubricOutcome(
  task: Parameters<typeof rubricHoles>[0],
  loaded: Parameters<typeof rubricHoles>[1],
  detail: string,
): Promise<StepOutcome> {
  const holes = await rubricHoles(task, loaded);
  if (holes.judged.length === 0) return { status: "pass", detail };
  const passed = holesOf(holes).map((p) => p.label);
  if (passed.length > 0) {
    return {
      status: "fail",
      detail: `the rubric of ${holes.judged.join(", ")} passes the deliverable written under ${passed.join(", ")}: its criteria miss what those conventions change (add a criterion that checks it)`,
    };
  }
  const left = holes.probes.filter((p) => p.leftToJudge).length;
  const decided = holes.probes.length - left;
  const caught = `${detail}; the rubric fails each deliverable written under a wrong convention (${decided})${left > 0 ? `, ${left} more left to its judge criteria (judge-calibration)` : ""}`;
  if (holes.idle.length > 0) {
    return {
      status: "warning",
      detail: `${caught}; idle criteria, passed by every wrong deliverable: ${holes.idle.map((c) => `"${c}"`).join(", ")} (they check nothing a convention changes)`,
    };
  }
  return { status: "pass", detail: caught };
}

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
