// The endpoint ping before a command's first trial (src/api/ping.ts) as a command's step: skipped by
// --no-ping; the configurations are the command's agents and the judges its tasks' judge criteria name.
import { pingBeforeTrials } from "../api/index.ts";
import { type LoadedTask, loadValidTask } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

/** The tasks that load (one that does not names no judge: the command's own checks name what is wrong). */
function loadable(ctx: CommandContext, taskIds: readonly string[]): LoadedTask[] {
  return taskIds.flatMap((id) => {
    try {
      return [loadValidTask(ctx.paths, id)];
    } catch {
      return [];
    }
  });
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
  await pingBeforeTrials(ctx.paths, names, loadable(ctx, taskIds));
}
