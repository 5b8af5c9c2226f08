// The judges of a calibration's tasks (judge criteria, docs/verify.md#judge-criteria): what each
// task's judge calls can cost at most in one trial (added to its cells' worst case for --max-cost and
// --estimate), and their keys, required before a run starts as the agents' are.
import { judgePanel, loadAgentConfigs } from "../agents/index.ts";
import { type JudgeCaps, type JudgeWorstCase, judgeWorstCase } from "../cost/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { LoadedTask } from "../task/index.ts";
import { type JudgeCallsBound, taskJudgeBounds } from "../trial/index.ts";

/** Each task's judge calls at most, by task id (a task without judge criteria, or whose verifier does not load, has none). */
export async function judgeBoundsOf(tasks: readonly LoadedTask[]): Promise<Map<string, JudgeCallsBound[]>> {
  const bounds = new Map<string, JudgeCallsBound[]>();
  for (const task of tasks) {
    // a verifier that does not load leaves every trial unverified (kgate check names why): no judge is asked
    const judged = await taskJudgeBounds(task).catch(() => []);
    if (judged.length > 0) bounds.set(task.id, judged);
  }
  return bounds;
}

/** The worst case of each task's judges at their configurations' prices, by task id. */
export function judgeWorstCases(
  paths: ProjectPaths,
  bounds: ReadonlyMap<string, JudgeCallsBound[]>,
): Map<string, JudgeWorstCase> {
  const configs = new Map(loadAgentConfigs(paths).agents.map((a) => [a.name, a]));
  const capsOf = (name: string): JudgeCaps => configs.get(name) ?? null;
  return new Map([...bounds].map(([id, b]) => [id, judgeWorstCase(b, capsOf)]));
}

/** `task: why` for each task whose judge cannot be asked here (no configuration, key not set). */
export function missingJudges(
  paths: ProjectPaths,
  bounds: ReadonlyMap<string, JudgeCallsBound[]>,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const panel = judgePanel(paths, { env });
  return [...bounds].flatMap(([id, b]) =>
    [...new Set(b.map((j) => j.config))].flatMap((config) => {
      const why = panel.unavailable(config);
      return why ? [`${id}: ${why}`] : [];
    }),
  );
}
