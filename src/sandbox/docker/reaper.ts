// The reaper of one Docker daemon: containers and volumes whose owning kgate process is gone (by the
// labels of ../labels.ts) are removed on the next start and by `kgate sandbox reap`, and a run's when
// it is interrupted; every sweep bounded, so a deadlocked daemon fails it instead of hanging it.

import { ownerAlive } from "../../common/index.ts";
import { LABEL, LABEL_OWNER, LABEL_RUN, LABEL_TRIAL } from "../labels.ts";
import { SandboxUnavailableError } from "../types.ts";
import { statusOf } from "./calls.ts";
import { DockerClient } from "./client.ts";

/** What a sweep of one daemon removed: containers (with their run and trial) and disk volumes (disk.ts). */
export interface ReapResult {
  removed: Array<{ id: string; run: string; trial: string }>;
  volumes: string[];
}

/**
 * How long a sweep may wait on the daemon. A call that never returns (a daemon deadlocked on one
 * container) fails the sweep as unavailable instead of hanging every command behind it.
 */
export const REAP_TIMEOUT_MS = 30_000;

/** Runs `sweep` with a signal that abandons its daemon calls after `ms`; then rejects, whatever they do. */
async function withinBound<T>(
  what: string,
  ms: number,
  sweep: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const failure = () =>
    new SandboxUnavailableError(`the Docker daemon did not answer ${what} within ${ms / 1000} s`);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(failure());
    }, ms);
  });
  try {
    return await Promise.race([sweep(controller.signal), expired]);
  } catch (err) {
    throw controller.signal.aborted ? failure() : err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Removes the containers and volumes of kgate processes that are gone (on this daemon), bounded by
 * `timeoutMs` (SandboxUnavailableError past it).
 */
export async function reapDeadRuns(
  docker: DockerClient = new DockerClient(),
  { timeoutMs = REAP_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<ReapResult> {
  return withinBound("the reaper", timeoutMs, async (signal) => {
    const containers = await docker.listContainers([`${LABEL}=1`, LABEL_OWNER], signal);
    const dead = containers.filter((c) => !ownerAlive(c.labels[LABEL_OWNER] ?? ""));
    await Promise.all(dead.map((c) => docker.removeContainer(c.id, signal)));
    // After the containers: a volume still mounted by a container cannot be removed.
    const volumes = (await docker.listVolumes([`${LABEL}=1`, LABEL_OWNER], signal))
      .filter((v) => !ownerAlive(v.labels[LABEL_OWNER] ?? ""))
      .map((v) => v.name);
    // 409: still in use by a container another process is removing right now; the next sweep gets it.
    const inUse = (err: unknown) => {
      if (statusOf(err) !== 409) throw err;
    };
    await Promise.all(volumes.map((v) => docker.removeVolume(v, signal).catch(inUse)));
    return {
      removed: dead.map((c) => ({
        id: c.id,
        run: c.labels[LABEL_RUN] ?? "",
        trial: c.labels[LABEL_TRIAL] ?? "",
      })),
      volumes,
    };
  });
}

let once: Promise<ReapResult> | undefined;

/**
 * reapDeadRuns, once per process: the first sandbox a process creates waits for it, so every kgate
 * command that uses Docker starts by removing what dead runs left behind.
 */
export function reapDeadRunsOnce(docker: DockerClient = new DockerClient()): Promise<ReapResult> {
  once ??= reapDeadRuns(docker);
  return once;
}

/**
 * Removes every container of one run, then its volumes (used on interrupt). Bounded as the reaper is.
 */
export function removeRunContainers(
  runId: string,
  docker: DockerClient = new DockerClient(),
  { timeoutMs = REAP_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<ReapResult> {
  const labels = [`${LABEL}=1`, `${LABEL_RUN}=${runId}`];
  return withinBound(`the removal of run ${runId}`, timeoutMs, async (signal) => {
    const containers = await docker.listContainers(labels, signal);
    await Promise.all(containers.map((c) => docker.removeContainer(c.id, signal)));
    const volumes = await docker.listVolumes(labels, signal);
    await Promise.all(volumes.map((v) => docker.removeVolume(v.name, signal)));
    return {
      removed: containers.map((c) => ({ id: c.id, run: runId, trial: c.labels[LABEL_TRIAL] ?? "" })),
      volumes: volumes.map((v) => v.name),
    };
  });
}
