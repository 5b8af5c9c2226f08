// The endpoint ping before a command's first trial (src/agents/ping-first.ts) as a command's step:
// skipped by --no-ping, a configuration that does not answer is the user's to fix (exit 2).
import { unansweredEndpoints, unansweredMessage } from "../agents/index.ts";
import { UsageError } from "../errors.ts";
import { relativeToProject } from "../project.ts";
import type { CommandContext } from "./context.ts";

/** Pings the named configurations once (unless `ping` is false: --no-ping); throws when one does not answer. */
export async function pingFirst(
  ctx: CommandContext,
  names: readonly string[],
  ping: boolean | undefined,
): Promise<void> {
  if (ping === false) return;
  const unanswered = await unansweredEndpoints(ctx.paths, names);
  if (unanswered.length > 0)
    throw new UsageError(unansweredMessage(relativeToProject(ctx.paths, ctx.paths.config), unanswered));
}
