// Labels on every kgate container, and the reaper that uses them: containers whose owning kgate
// process is gone are removed on the next start, and a run's containers go on Ctrl-C / SIGTERM.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { DockerClient } from "./docker.ts";

export const LABEL = "kgate";
export const LABEL_RUN = "kgate.run";
export const LABEL_TRIAL = "kgate.trial";
export const LABEL_TASK = "kgate.task";
/** `<host>/<pid>/<process start time>`: tells a live owner from a dead one whose pid was reused. */
export const LABEL_OWNER = "kgate.owner";

function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime), counted after the command name in parentheses.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

let ownerCache: string | undefined;

export function ownerLabel(): string {
  ownerCache ??= `${hostname()}/${process.pid}/${startTime(process.pid) ?? "0"}`;
  return ownerCache;
}

export function containerLabels(ids: {
  runId: string;
  trialId: string;
  taskId: string;
}): Record<string, string> {
  return {
    [LABEL]: "1",
    [LABEL_RUN]: ids.runId,
    [LABEL_TRIAL]: ids.trialId,
    [LABEL_TASK]: ids.taskId,
    [LABEL_OWNER]: ownerLabel(),
  };
}

/** Whether the process named by an owner label is alive; owners on other hosts count as alive. */
export function ownerAlive(owner: string): boolean {
  const [host, pidText, start] = owner.split("/");
  if (host !== hostname()) return true;
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const current = startTime(pid);
  if (current !== null) return start === "0" || current === start;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface ReapResult {
  removed: Array<{ id: string; run: string; trial: string }>;
}

/** Removes the containers of kgate processes that are gone (on this host). */
export async function reapDeadRuns(docker: DockerClient = new DockerClient()): Promise<ReapResult> {
  const containers = await docker.listContainers([`${LABEL}=1`, LABEL_OWNER]);
  const dead = containers.filter((c) => !ownerAlive(c.labels[LABEL_OWNER] ?? ""));
  await Promise.all(dead.map((c) => docker.removeContainer(c.id)));
  return {
    removed: dead.map((c) => ({
      id: c.id,
      run: c.labels[LABEL_RUN] ?? "",
      trial: c.labels[LABEL_TRIAL] ?? "",
    })),
  };
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

/** Removes every container of one run (used on interrupt); returns how many there were. */
export async function removeRunContainers(
  runId: string,
  docker: DockerClient = new DockerClient(),
): Promise<number> {
  const containers = await docker.listContainers([`${LABEL}=1`, `${LABEL_RUN}=${runId}`]);
  await Promise.all(containers.map((c) => docker.removeContainer(c.id)));
  return containers.length;
}

/**
 * On the first SIGINT/SIGTERM: aborts `controller` and removes the run's containers, then lets the
 * command finish (it records the cancelled trials). A second signal ends the process at once. Returns a disposer.
 */
export function removeOnInterrupt(
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
    removeRunContainers(runId).catch((err: Error) => log(`could not remove the containers: ${err.message}`));
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  const dispose = () => {
    process.off("SIGINT", handler);
    process.off("SIGTERM", handler);
  };
  return dispose;
}

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
