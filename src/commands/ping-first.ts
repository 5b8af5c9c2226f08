// The endpoint ping before a command's first trial (src/agents/ping-first.ts) as a command's step:
// skipped by --no-ping, a configuration that does not answer is the user's to fix (exit 2). The
// configurations are the command's agents and the judges its tasks' judge criteria name.
import { unansweredEndpoints, unansweredMessage } from "../agents/index.ts";
import { UsageError } from "../errors.ts";
import { relativeToProject } from "../project.ts";
import { loadValidTask } from "../task/index.ts";
import { taskJudgeBounds } from "../trial/index.ts";
import type { CommandContext } from "./context.ts";

/** The judge configurations the tasks' verifiers name (a task or verifier that does not load names none). */
async function judgesOf(ctx: CommandContext, taskIds: readonly string[]): Promise<string[]> {
  const judges = await Promise.all(
    taskIds.map(async (id) => {
      try {
        return (await taskJudgeBounds(loadValidTask(ctx.paths, id))).map((b) => b.config);
      } catch {
        return []; // the command's own checks name what is wrong with the task
      }
    }),
  );
  return judges.flat();
}

/**
 * Pings the named configurations and the judges of the tasks once (unless `ping` is false: --no-ping);
 * throws when one does not answer.
 */
export async function pingFirst(
  ctx: CommandContext,
  names: readonly string[],
  ping: boolean | undefined,
  taskIds: readonly string[] = [],
): Promise<void> {
  if (ping === false) return;
  const wanted = [...new Set([...names, ...(await judgesOf(ctx, taskIds))])];
  const unanswered = await unansweredEndpoints(ctx.paths, wanted);
  if (unanswered.length > 0)
    throw new UsageError(unansweredMessage(relativeToProject(ctx.paths, ctx.paths.config), unanswered));
}
