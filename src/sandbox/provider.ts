// The sandbox provider interface the trial engine and the agents use without knowing Docker: the
// images (the sandbox image, and images derived from it such as an installed harness's), a hardened
// sandbox per trial (exec, files, stop, outputs, remove), the sweep of dead processes' leftovers and,
// for a pool, the placement of a trial on a host. Providers are registered by name in config.ts
// (SANDBOX_PROVIDERS) and chosen in kgate.config.json (`sandbox`).
import type { CollectedOutput, SandboxRequirements } from "../model/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { Limits } from "../task/index.ts";
import type { PackFile } from "./archive.ts";
import type { DiskCapMechanism } from "./docker/disk.ts";
import type { ExecStream, ExecStreamOptions, Sandbox } from "./types.ts";

/** A file the task declares as output (task.json `outputs`), with its size cap. */
export interface DeclaredOutput {
  path: string;
  maxBytes: number;
}

/** One declared output as collected: its record (collected, missing, rejected) and, when collected, its bytes. */
export interface OutputFile {
  record: CollectedOutput;
  bytes?: Buffer;
}

/** What a trial asks of its sandbox. */
export interface SandboxSpec {
  image: string;
  limits: Pick<Limits, "cpus" | "memoryMb" | "pids" | "timeoutSec" | "diskMb">;
  /** Off unless the task asks for it. */
  network: boolean;
  /** Labels for cleanup: run, trial, task and the owning process. */
  labels: Record<string, string>;
  requirements?: SandboxRequirements;
}

/**
 * One trial's sandbox. Every method rejects with SandboxUnavailableError when the provider itself
 * fails (daemon gone, container vanished); ordinary file problems are SandboxFileError (readFile,
 * writeFile) or an output's record (collectOutputs); a command's non-zero exit is a result (exec).
 */
export interface TrialSandbox extends Sandbox {
  /** The provider's id of the sandbox (a container id). */
  readonly id: string;
  /** Every provider streams: the installed harnesses' relay travels over it. */
  execStream(argv: string[], options?: ExecStreamOptions): Promise<ExecStream>;
  /** Copies files (with parent folders) into a folder of the sandbox, owned by the sandbox user. */
  putFiles(dir: string, files: readonly PackFile[]): Promise<void>;
  /**
   * The first place the agent can write to (its writable folders, /tmp, /dev/shm) that is full
   * (under 1% of its blocks or of its inodes free), described with its use, or null; asked after
   * the agent phase, while the agent's processes still run.
   */
  fullFolder?(): Promise<string | null>;
  /**
   * After it, no agent process runs and none starts (exec and execStream are refused), and the files
   * stay readable (readFile, collectOutputs) until remove(): however the provider does it (Docker
   * freezes the processes). A provider that must ask again (a freeze the kernel refused) does so
   * until `signal` aborts: the stop phase's bound.
   */
  stop(options?: { signal?: AbortSignal }): Promise<void>;
  /** Copies the declared outputs out, each checked by type, path and size; call after stop(). */
  collectOutputs(outputs: readonly DeclaredOutput[]): Promise<OutputFile[]>;
  /** Removes the sandbox and everything in it. */
  remove(): Promise<void>;
}

/** The sandbox image (or an image derived from it) as built or found on a provider. */
export interface SandboxImage {
  /** What create() takes (a tag). */
  ref: string;
  /** Content id (sha256:...) for provenance, and the base it was built on. */
  id: string | null;
  base: string | null;
}

/**
 * An image built on top of the provider's sandbox image (an installed harness's): a build context
 * whose Dockerfile starts `ARG BASE` / `FROM ${BASE}`. Whoever plans it makes the tag content-addressed
 * (context files, build args and base), so a tag that exists is the image asked for.
 */
export interface DerivedImageSpec {
  tag: string;
  /** The sandbox image's ref on this provider (SandboxImage.ref of prepareImage), given as BASE. */
  base: string;
  /** The build context: a folder and its files (paths relative to it, a Dockerfile among them). */
  contextDir: string;
  files: readonly string[];
  /** Build args besides BASE. */
  buildArgs: Record<string, string>;
  labels: Record<string, string>;
  /** What it is, for progress lines: `the harness image`. */
  what: string;
}

export interface SandboxProvider {
  /** Registered name, e.g. `docker`. */
  readonly name: string;
  /** Where sandboxes run: `local`, or the endpoint (tcp://host:2376, ssh://user@host). */
  readonly host: string;
  /** How the provider caps a sandbox's writable folders at the task's diskMb (records say so). */
  readonly diskCap?: DiskCapMechanism;
  /**
   * Builds or finds the sandbox image (once per provider unless forced); on a pool, on the first
   * host that answers, and place() loads it into the host of each trial. Rejects with
   * SandboxUnavailableError when the provider fails (AllHostsDownError: every host of a pool), a
   * plain Error when the build itself fails (a Dockerfile step, the base) or sandbox/ is unreadable.
   */
  prepareImage(
    paths: ProjectPaths,
    onProgress?: (line: string) => void,
    /** force: build even when an image of that tag exists (`kgate sandbox build`). */
    options?: { force?: boolean },
  ): Promise<SandboxImage>;
  /**
   * Builds or finds an image derived from the sandbox image (once per provider and tag), where
   * prepareImage put the sandbox image: on a pool, place() loads it into the host of each trial that
   * names it. Call after prepareImage (spec.base is its ref). Rejects like prepareImage.
   */
  prepareDerivedImage(spec: DerivedImageSpec, onProgress?: (line: string) => void): Promise<SandboxImage>;
  /**
   * The content id of an image where prepareImage would look for it (on a pool: the host that built
   * the images, else the first that answers), or null when it is not there; builds nothing. Rejects
   * with SandboxUnavailableError when the provider does not answer.
   */
  findImage(ref: string): Promise<string | null>;
  /** Creates and starts a sandbox; a failed start removes what was created. */
  create(spec: SandboxSpec): Promise<TrialSandbox>;
  /** Removes what kgate processes that are gone left behind; returns how many sandboxes. */
  reap(): Promise<number>;
  /**
   * A pool of hosts: reserves a slot for one trial on a host with room, with `images` (the sandbox
   * image or a derived one, by ref) loaded there from the host that built them, and gives that host's
   * provider. Rejects only with AllHostsDownError, once every host has stayed down for the pool's
   * grace period (the engine then stops the run); a cancelled wait, or an image that cannot be
   * loaded, gives a placement whose create fails with the reason.
   */
  place?(images: readonly string[], signal?: AbortSignal): Promise<Placement>;
}

/** One trial's slot on one host of a pool. */
export interface Placement {
  provider: SandboxProvider;
  /** Frees the slot (once). */
  release(): void;
}
