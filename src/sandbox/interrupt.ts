// What a command does on Ctrl-C / SIGTERM: abort its run, and have the provider kgate.config.json names
// remove the run's sandboxes on each of its hosts (removeRun: for Docker the one daemon, or each host
// of a pool, remote ones too); the command then records its cancelled trials.
import type { ProjectPaths } from "../project.ts";
import { sandboxProviderFor } from "./config.ts";

/** The abort reason of an interrupted run, carrying the exit code the command should return. */
export class InterruptedError extends Error {
  override name = "InterruptedError";
  constructor(
    readonly signal: NodeJS.Signals,
    readonly exitCode: number,
  ) {
    super(`interrupted by ${signal}`);
  }
}

/** One host's part of removing a run: how many containers went, or why none could. */
export type HostRemoval = { host: string; removed: number } | { host: string; error: string };

/**
 * Removes every sandbox of run `runId` on each host of the configured provider, side by side (each
 * host's calls bounded by the provider). Never rejects: a host that fails, or a configuration that
 * cannot be read, is an entry with its error; a provider without removeRun removes nothing here
 * (each trial still removes its own sandbox as it ends).
 */
export async function removeRunEverywhere(paths: ProjectPaths, runId: string): Promise<HostRemoval[]> {
  try {
    const sweeps = (await sandboxProviderFor(paths).removeRun?.(runId)) ?? [];
    return sweeps.map((s) =>
      s.error ? { host: s.host, error: s.error } : { host: s.host, removed: s.removed.length },
    );
  } catch (err) {
    return [{ host: "kgate.config.json", error: (err as Error).message }];
  }
}

/**
 * On the first SIGINT/SIGTERM: aborts `controller` with an InterruptedError and removes the run's
 * containers on every configured host, then lets the command finish (it records the cancelled
 * trials). A second signal ends the process at once. Returns a disposer.
 */
export function removeOnInterrupt(
  paths: ProjectPaths,
  runId: string,
  controller: AbortController,
  log: (line: string) => void = () => {},
): () => void {
  const handler = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      // Second signal: give up waiting and let the default action end the process.
      dispose();
      process.kill(process.pid, signal);
      return;
    }
    const code = signal === "SIGINT" ? 130 : 143;
    log(`${signal}: stopping run ${runId} and removing its containers`);
    controller.abort(new InterruptedError(signal, code));
    void removeRunEverywhere(paths, runId).then((results) => {
      for (const r of results) {
        if ("error" in r) log(`could not remove the containers on ${r.host}: ${r.error}`);
      }
    });
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  const dispose = () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
  return dispose;
}
