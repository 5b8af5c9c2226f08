// The endpoint ping before the first trial, for every verb and the library alike: the named model
// configurations and the judges their tasks' judge criteria name, each pinged once (src/agents'
// unansweredEndpoints); one that does not answer is the user's to fix (a UsageError naming it, its URL
// and the fix).
import { unansweredEndpoints, unansweredMessage } from "../agents/index.ts";
import { UsageError } from "../errors.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import type { LoadedTask } from "../task/index.ts";
import { taskJudgeBounds } from "../trial/index.ts";

/** The judge configurations the tasks' verifiers name (a verifier that does not load names none: its trials say why). */
async function judgesOf(tasks: readonly LoadedTask[]): Promise<string[]> {
  const judges = await Promise.all(
    tasks.map(async (task) => (await taskJudgeBounds(task).catch(() => [])).map((b) => b.config)),
  );
  return judges.flat();
}

/** Pings the named configurations and the judges of the tasks once; throws a UsageError when one does not answer. */
export async function pingBeforeTrials(
  paths: ProjectPaths,
  names: readonly string[],
  tasks: readonly LoadedTask[] = [],
): Promise<void> {
  const wanted = [...new Set([...names, ...(await judgesOf(tasks))])];
  const unanswered = await unansweredEndpoints(paths, wanted);
  if (unanswered.length > 0)
    throw new UsageError(unansweredMessage(relativeToProject(paths, paths.config), unanswered));
}
