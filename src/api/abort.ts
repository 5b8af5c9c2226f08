// What the library does after an aborted run: each cancelled trial removes its own sandbox as it
// ends; once the work has stopped, one sweep of the configured provider removes whatever of the run
// is left (a sandbox whose removal failed), so an AbortSignal leaves no containers behind.
import type { ProjectPaths } from "../project.ts";
import { removeRunEverywhere } from "../sandbox/index.ts";

/** After the run: when `signal` was aborted, removes run `runId`'s sandboxes left on each host. */
export async function sweepAfterAbort(
  paths: ProjectPaths,
  runId: string,
  signal: AbortSignal | undefined,
  log: (line: string) => void,
): Promise<void> {
  if (!signal?.aborted) return;
  for (const r of await removeRunEverywhere(paths, runId)) {
    if ("error" in r) log(`could not remove the containers on ${r.host}: ${r.error}`);
  }
}
