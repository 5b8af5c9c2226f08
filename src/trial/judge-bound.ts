// The most a task's judge criteria can ask of their judges in one trial: per criterion, one call for
// its verdict and one per candidate convention set whose text differs (attribution, on a failure),
// each sending the system prompt, the verdict tool and the criterion with every output it reads at
// that output's size cap. Cost bounds (--max-cost, --estimate) price these calls at the judge's prices.
import { JUDGE_SYSTEM_PROMPT, judgeMessages, VERDICT_TOOL } from "../agents/index.ts";
import type { LoadedTask } from "../task/index.ts";
import {
  criterionText,
  expectedOutputs,
  isJudgeCriterion,
  type LoadedVerifier,
  loadVerifier,
} from "../verify/index.ts";

/** One judge's calls in a trial at most: the bytes each sends. */
export interface JudgeCallsBound {
  /** The agent configuration that judges. */
  config: string;
  /** Per call, the UTF-8 bytes it sends (system prompt, tool, message), the deliverables at their caps. */
  inputBytes: number[];
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** The bounds of a loaded task's judge criteria (empty when it has none). */
export function judgeCallBounds(task: LoadedTask, loaded: LoadedVerifier): JudgeCallsBound[] {
  const fixed = bytes(JUDGE_SYSTEM_PROMPT) + bytes(JSON.stringify(VERDICT_TOOL));
  const sets = [
    "artefact" as const,
    "default" as const,
    ...task.variants.filter((v) => v.kind === "perturbed").map((v) => `variant:${v.name}` as const),
  ];
  const bounds: JudgeCallsBound[] = [];
  for (const output of task.spec.outputs) {
    for (const c of loaded.rubricOf(output.path)?.criteria ?? []) {
      if (!isJudgeCriterion(c)) continue;
      const reads = c.reads ?? [output.path];
      const caps = reads.reduce(
        (sum, p) => sum + (task.spec.outputs.find((o) => o.path === p)?.maxBytes ?? 0),
        0,
      );
      const texts = sets.map((set) =>
        criterionText(loaded, c, output.path, expectedOutputs(task, loaded, set)),
      );
      const call = (text: string) => {
        const [message] = judgeMessages(
          text,
          reads.map((path) => ({ path, text: "" })),
        );
        return fixed + bytes(message?.role === "user" ? message.text : "") + caps;
      };
      // the verdict, then each candidate whose text differs from the artefact's
      const asked = [texts[0]!, ...texts.slice(1).filter((t) => t !== texts[0])];
      bounds.push({ config: c.judge, inputBytes: asked.map(call) });
    }
  }
  return bounds;
}

/** The judge bounds of a task, its verifier loaded (empty when it has no judge criteria). */
export async function taskJudgeBounds(task: LoadedTask): Promise<JudgeCallsBound[]> {
  return judgeCallBounds(task, await loadVerifier(task));
}
