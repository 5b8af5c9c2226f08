// A sandbox provider over a pool of Docker hosts (`sandbox.hosts`): each trial goes to the least
// loaded host with a free slot; the sandbox image and the images derived from it are built once, on
// the first host that answers, and loaded into each other host by id when a trial lands there; a host
// that stops answering is marked down (its trials fail as `host-down`) and comes back when it answers.
import type { ProjectPaths } from "../../project.ts";
import type {
  DerivedImageSpec,
  HostReport,
  HostSweep,
  Placement,
  SandboxImage,
  SandboxProvider,
  SandboxSpec,
  TrialSandbox,
} from "../provider.ts";
import { AllHostsDownError, HostDownError, SandboxApiError, SandboxUnavailableError } from "../types.ts";
import { DISK_CAP_MECHANISM } from "./disk.ts";
import { HostedSandbox } from "./hosted-sandbox.ts";
import { type DockerEndpoint, DockerProvider } from "./provider.ts";

export interface PoolHost {
  name: string;
  endpoint: DockerEndpoint;
  /** Trials at once on this host. */
  capacity: number;
}

export interface HostPoolOptions {
  /** A ping that takes longer counts as no answer (default 3 s). */
  pingTimeoutMs?: number;
  /** How often a down host is asked again (default 5 s). */
  recheckMs?: number;
  /** After a failed call, how long before the host is asked a second time (default 3 s: a dockerd that stops its containers on SIGTERM still answers meanwhile). */
  settleMs?: number;
  /** How long every host may be down before place() gives up with AllHostsDownError (default 15 s). */
  allDownGraceMs?: number;
  /** `sandbox.image`: a registry reference every host pulls instead of building sandbox/. */
  image?: string;
  log?: (line: string) => void;
}

/** One host's state in the pool. */
export interface HostState {
  readonly name: string;
  readonly capacity: number;
  readonly provider: DockerProvider;
  running: number;
  /** Why the host is down, or null while it answers. */
  down: string | null;
  checkedAt: number;
  /** Image refs loaded (or being loaded) on this host, by ref. */
  images: Map<string, Promise<void>>;
}

/** The daemon failed (did not answer, or answered an API error), as opposed to a file problem. */
function daemonFailure(err: unknown): boolean {
  return err instanceof SandboxUnavailableError || err instanceof SandboxApiError;
}

export class HostPoolProvider implements SandboxProvider {
  readonly name = "docker";
  readonly diskCap = DISK_CAP_MECHANISM;
  readonly hosts: HostState[];
  /** The host that built (or found) the images; the others load them from it. */
  private source?: HostState;
  private image?: Promise<SandboxImage>;
  private readonly wakers = new Set<() => void>();
  private readonly pingTimeoutMs: number;
  private readonly recheckMs: number;
  private readonly settleMs: number;
  private readonly allDownGraceMs: number;
  /** Since when every host has been down (null while one answers). */
  private allDownSince: number | null = null;
  private readonly log: (line: string) => void;

  constructor(hosts: readonly PoolHost[], o: HostPoolOptions = {}) {
    if (hosts.length === 0) throw new RangeError("a host pool needs at least one host");
    this.hosts = hosts.map((h) => ({
      name: h.name,
      capacity: h.capacity,
      provider: new DockerProvider(h.endpoint, { name: h.name, image: o.image }),
      running: 0,
      down: null,
      checkedAt: 0,
      images: new Map(),
    }));
    this.pingTimeoutMs = o.pingTimeoutMs ?? 3000;
    this.recheckMs = o.recheckMs ?? 5000;
    this.settleMs = o.settleMs ?? 3000;
    this.allDownGraceMs = o.allDownGraceMs ?? 15_000;
    this.log = o.log ?? (() => {});
  }

  get host(): string {
    return this.hosts.map((h) => h.name).join(",");
  }

  /** Builds or finds the image on the first host that answers; the others load it when a trial lands there. */
  prepareImage(
    paths: ProjectPaths,
    onProgress?: (line: string) => void,
    options: { force?: boolean } = {},
  ): Promise<SandboxImage> {
    if (this.image && !options.force) return this.image;
    const image = (async () => {
      for (const state of this.hosts) {
        if (state.down) continue;
        try {
          const prepared = await state.provider.prepareImage(paths, onProgress, options);
          this.source = state;
          return prepared;
        } catch (err) {
          if (!(err instanceof SandboxUnavailableError) || (await this.answers(state))) throw err;
          this.markDown(state, (err as Error).message);
        }
      }
      throw this.allDown();
    })();
    this.image = image;
    image.catch(() => {
      if (this.image === image) this.image = undefined;
    });
    return image;
  }

  /**
   * Builds or finds a derived image on the host that holds the sandbox image it is built on; the
   * others load it when a trial naming it lands there. That host gone: HostDownError.
   */
  prepareDerivedImage(spec: DerivedImageSpec, onProgress?: (line: string) => void): Promise<SandboxImage> {
    const source = this.source;
    if (!source)
      return Promise.reject(
        new Error(`${spec.tag}: prepareImage first (the sandbox image is on no host yet)`),
      );
    return this.guard(source, () => source.provider.prepareDerivedImage(spec, onProgress));
  }

  /** Asked of the host that built the images, else of each host in order until one answers. */
  async findImage(ref: string): Promise<string | null> {
    const source = this.source;
    const order = source ? [source, ...this.hosts.filter((h) => h !== source)] : this.hosts;
    for (const state of order) {
      if (state.down) continue;
      try {
        return await state.provider.findImage(ref);
      } catch (err) {
        if (!(err instanceof SandboxUnavailableError) || (await this.answers(state))) throw err;
        this.markDown(state, err.message);
      }
    }
    throw this.allDown();
  }

  /** Not used by the engine (it places trials first); creates on a placed host for direct callers. */
  async create(spec: SandboxSpec): Promise<TrialSandbox> {
    const placement = await this.place([spec.image]);
    try {
      const sandbox = await placement.provider.create(spec);
      const remove = sandbox.remove.bind(sandbox);
      return Object.assign(sandbox, {
        remove: () => remove().finally(() => placement.release()),
      });
    } catch (err) {
      placement.release();
      throw err;
    }
  }

  /** Each host's sweep, side by side; a host that does not answer is marked down (swept next time). */
  reap(): Promise<HostSweep[]> {
    return this.onEveryHost((p) => p.reap());
  }

  /** The run's containers on every host at once (Ctrl-C), each host's calls bounded (reaper.ts). */
  removeRun(runId: string): Promise<HostSweep[]> {
    return this.onEveryHost((p) => p.removeRun(runId));
  }

  /** Each host's checks, with its capacity. */
  async doctor(paths: ProjectPaths): Promise<HostReport[]> {
    const reports = await Promise.all(this.hosts.map((h) => h.provider.doctor(paths)));
    return reports.flat().map((r, i) => {
      const capacity = this.hosts[i]!.capacity;
      const checks = [...r.checks, { name: "capacity", ok: true, detail: `${capacity} trial(s) at once` }];
      return { ...r, capacity, checks };
    });
  }

  private async onEveryHost(work: (p: DockerProvider) => Promise<HostSweep[]>): Promise<HostSweep[]> {
    const sweeps = (await Promise.all(this.hosts.map((h) => work(h.provider)))).flat();
    for (const [i, sweep] of sweeps.entries()) if (sweep.error) this.markDown(this.hosts[i]!, sweep.error);
    return sweeps;
  }

  async place(images: readonly string[], signal?: AbortSignal): Promise<Placement> {
    for (;;) {
      if (signal?.aborted) return this.failing(new SandboxUnavailableError("the run was cancelled"));
      await this.recheck(false);
      let up = this.hosts.filter((h) => !h.down);
      if (up.length === 0) {
        await this.recheck(true);
        up = this.hosts.filter((h) => !h.down);
      }
      if (up.length === 0) {
        // every host down: wait out the grace period (asking again), then the run stops
        this.allDownSince ??= Date.now();
        const left = this.allDownSince + this.allDownGraceMs - Date.now();
        if (left <= 0) throw this.allDown();
        await this.waitForRoom(signal, Math.min(left, this.recheckMs));
        continue;
      }
      this.allDownSince = null;
      const free = up
        .filter((h) => h.running < h.capacity)
        .sort((a, b) => a.running / a.capacity - b.running / b.capacity);
      const state = free[0];
      if (!state) {
        await this.waitForRoom(signal);
        continue;
      }
      state.running += 1;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        state.running -= 1;
        for (const wake of this.wakers) wake();
      };
      try {
        for (const ref of images) await this.loadImage(state, ref);
      } catch (err) {
        release();
        if (err instanceof SandboxUnavailableError && !(await this.answers(state))) {
          this.markDown(state, err.message);
          continue;
        }
        return this.failing(err instanceof Error ? err : new Error(String(err)));
      }
      return { provider: new PlacedProvider(this, state), release };
    }
  }

  /**
   * Runs a call against a host; a failure of the daemon (unreachable, or an API error) on a host that
   * then stops answering marks it down. A daemon shutting down still answers for a moment with 409s
   * and 500s (for seconds on a loaded machine, while it stops its containers), so a host that answers
   * is asked once more after `settleMs` (3 s by default).
   */
  async guard<T>(state: HostState, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof HostDownError || !daemonFailure(err)) throw err;
      if ((await this.answers(state)) && (await this.answersAfter(state, this.settleMs))) {
        // the host answers: an API error of the call (a container stopped under it) is the sandbox's
        if (err instanceof SandboxUnavailableError) throw err;
        throw new SandboxUnavailableError(`host ${state.name}: ${(err as Error).message}`, { cause: err });
      }
      const message = (err as Error).message;
      this.markDown(state, message);
      throw new HostDownError(`host ${state.name} stopped answering: ${message}`, { cause: err });
    }
  }

  private async answersAfter(state: HostState, ms: number): Promise<boolean> {
    await new Promise((r) => setTimeout(r, ms));
    return this.answers(state);
  }

  /** Loads an image into a host once, from the host that built it, unless the same id is there. */
  private loadImage(state: HostState, ref: string): Promise<void> {
    const source = this.source;
    if (!source || source === state) return Promise.resolve();
    let loading = state.images.get(ref);
    if (!loading) {
      loading = (async () => {
        const want = await source.provider.docker.imageId(ref);
        const have = await state.provider.docker.imageId(ref);
        if (have !== null && (want === null || have === want)) return;
        if (want === null) throw new SandboxUnavailableError(`image ${ref} is on no host to copy from`);
        this.log(`host ${state.name}: loading ${ref} (${want.slice(0, 19)}) from ${source.name}`);
        await state.provider.docker.loadImage(await source.provider.docker.saveImage(ref));
      })();
      state.images.set(ref, loading);
      loading.catch(() => state.images.delete(ref));
    }
    return loading;
  }

  /** Asks down hosts again (every `recheckMs`, or all now when `now`); those that answer come back. */
  private async recheck(now: boolean): Promise<void> {
    const due = this.hosts.filter((h) => h.down && (now || Date.now() - h.checkedAt >= this.recheckMs));
    await Promise.all(
      due.map(async (state) => {
        state.checkedAt = Date.now();
        if (!(await this.answers(state))) return;
        state.down = null;
        state.images.clear();
        this.log(`host ${state.name} answers again`);
      }),
    );
  }

  private async answers(state: HostState): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.pingTimeoutMs);
    });
    const ping = state.provider.docker.ping().then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([ping, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private markDown(state: HostState, reason: string): void {
    if (!state.down) this.log(`host ${state.name} is down: ${reason}`);
    state.down = reason;
    state.checkedAt = Date.now();
  }

  private allDown(): AllHostsDownError {
    const why = this.hosts.map((h) => `${h.name}: ${h.down ?? "no answer"}`).join("; ");
    return new AllHostsDownError(`every sandbox host is down (${why})`);
  }

  /** A placement whose create fails with `err`, so the trial still ends in a record. */
  private failing(err: Error): Placement {
    const provider: SandboxProvider = {
      name: this.name,
      host: this.host,
      prepareImage: () => Promise.reject(err),
      create: () => Promise.reject(err),
    };
    return { provider, release: () => {} };
  }

  private waitForRoom(signal?: AbortSignal, ms = this.recheckMs): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      // Down hosts may come back while every slot is taken: look again now and then.
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}

/** One host of the pool as the trial sees it: its sandboxes are guarded for the host going down. */
class PlacedProvider implements SandboxProvider {
  readonly name = "docker";
  readonly host: string;
  readonly diskCap = DISK_CAP_MECHANISM;

  constructor(
    private readonly pool: HostPoolProvider,
    private readonly state: HostState,
  ) {
    this.host = state.name;
  }

  prepareImage(
    paths: ProjectPaths,
    onProgress?: (line: string) => void,
    options?: { force?: boolean },
  ): Promise<SandboxImage> {
    return this.pool.prepareImage(paths, onProgress, options);
  }

  prepareDerivedImage(spec: DerivedImageSpec, onProgress?: (line: string) => void): Promise<SandboxImage> {
    return this.pool.prepareDerivedImage(spec, onProgress);
  }

  findImage(ref: string): Promise<string | null> {
    return this.pool.findImage(ref);
  }

  async create(spec: SandboxSpec): Promise<TrialSandbox> {
    const guard = <T>(fn: () => Promise<T>) => this.pool.guard(this.state, fn);
    return new HostedSandbox(await guard(() => this.state.provider.create(spec)), guard);
  }
}
