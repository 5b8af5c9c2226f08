// The execs of each container whose process may still be starting, so that a container is never
// frozen while runc is starting a process in it: a process frozen in the middle of its start holds
// the daemon's lock on the container, and every later call on it (unpause, kill, remove) waits
// forever (seen with Docker 20.10 on cgroup v1). Pausing refuses new execs first, then waits until
// every exec in flight has started or ended.
import type Docker from "dockerode";
import { SandboxUnavailableError } from "../types.ts";
import { execCall } from "./calls.ts";

/** How long a pause waits for the execs in flight to start before it freezes the container anyway. */
export const EXEC_START_WAIT_MS = 10_000;

interface InFlight {
  /** Resolves once the process runs or has ended (asked of the daemon), or the exec never started. */
  settle(): Promise<void>;
}

export class ExecStarts {
  private readonly inFlight = new Map<string, Set<InFlight>>();
  private readonly frozen = new Set<string>();

  /**
   * Registers an exec about to be created in a container; throws SandboxUnavailableError when the
   * container is being paused (the stop phase: no command runs after it). Call the returned `done`
   * when the exec ended (or failed to start).
   */
  begin(id: string, settle: () => Promise<void>): () => void {
    if (this.frozen.has(id))
      throw new SandboxUnavailableError(
        "exec: the sandbox is stopped (no command runs after the stop phase)",
      );
    const entry: InFlight = { settle };
    const set = this.inFlight.get(id) ?? new Set<InFlight>();
    set.add(entry);
    this.inFlight.set(id, set);
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.inFlight.get(id) === set) this.inFlight.delete(id);
    };
  }

  /** Refuses new execs in the container, then waits (at most `ms`) for those in flight to start. */
  async freeze(id: string, ms = EXEC_START_WAIT_MS): Promise<void> {
    this.frozen.add(id);
    const pending = [...(this.inFlight.get(id) ?? [])].map((e) => e.settle().catch(() => {}));
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([Promise.all(pending), bound]);
    clearTimeout(timer);
    // a settle still polling when the bound passed stops with the container's removal (inspect fails)
  }

  /** The container is gone: forget it. */
  forget(id: string): void {
    this.frozen.delete(id);
    this.inFlight.delete(id);
  }
}

/**
 * Creates and starts an exec of container `id`, registered with `starts` until `done` (call it when
 * the exec's stream closed): a pause meanwhile waits until the daemon gives the process a pid
 * (`Running` is set before runc has started it) or reports it ended.
 */
export async function startTracked<S>(
  starts: ExecStarts,
  id: string,
  create: () => Promise<Docker.Exec>,
  start: (exec: Docker.Exec) => Promise<S>,
): Promise<{ exec: Docker.Exec; stream: S; done: () => void }> {
  let onCreated: (exec: Docker.Exec | null) => void = () => {};
  const created = new Promise<Docker.Exec | null>((resolve) => {
    onCreated = resolve;
  });
  const settle = async () => {
    const exec = await created;
    for (;;) {
      const info = await exec?.inspect();
      if (!info || (info.Pid ?? 0) > 0 || info.ExitCode !== null) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const done = starts.begin(id, settle);
  try {
    const exec = await create();
    onCreated(exec);
    return { exec, stream: await start(exec), done };
  } catch (err) {
    onCreated(null);
    done();
    throw err;
  }
}

/** The exit code of an exec whose stream has ended, asked of the daemon (null: still running after 1 s). */
export async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
  for (let i = 0; i < 200; i++) {
    const info = await execCall("exec inspect", () => exec.inspect());
    if (!info.Running) return info.ExitCode ?? null;
    await new Promise((r) => setTimeout(r, 5));
  }
  return null;
}
