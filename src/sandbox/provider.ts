// The sandbox provider interface, the only door to a sandbox: the trial engine, the agents and the
// commands use it without knowing the provider. Required: the sandbox image (prepareImage) and a
// hardened sandbox per trial (create; exec, readFile, writeFile, stop, collectOutputs, remove). The
// rest are optional capabilities, each with its default (capabilities.ts) or the documented loss
// without it: derived images, streaming exec, a disk cap, the sweep, a run's removal, the doctor's
// checks, placement on hosts. Providers register by name in config.ts and are chosen in
// kgate.config.json (`sandbox.provider`).
import type { z } from "zod";
import type { ProjectPaths } from "../project.ts";
import type { CollectedOutput, SandboxRequirements } from "../record/index.ts";
import type { Limits } from "../task/index.ts";
import type { PackFile } from "./archive.ts";
import type { Sandbox } from "./types.ts";

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

/**
 * What a trial asks of its sandbox. Every provider hardens it alike (the conformance suite,
 * test/support/conformance.ts, holds each to it): no network unless asked, the non-root user of
 * layout.ts without capabilities, nothing writable but its home, /tmp and the requirements'
 * writable folders, the cpu / memory / pids limits (and the disk at diskMb where the provider
 * declares diskCap), orphaned processes reaped, and the labels kept for the sweep.
 */
export interface SandboxSpec {
  image: string;
  limits: Pick<Limits, "cpus" | "memoryMb" | "pids" | "diskMb">;
  /** Off unless the task asks for it. */
  network: boolean;
  /** Labels for cleanup: run, trial, task and the owning process. */
  labels: Record<string, string>;
  requirements?: SandboxRequirements;
  /**
   * Seconds after which the sandbox ends itself, kgate gone or not: a trial's budget sets it
   * (sandboxDeadlineSec); absent, the sandbox lives until it is removed (or reaped).
   */
  deadlineSec?: number;
}

/**
 * One trial's sandbox. Every method rejects with SandboxUnavailableError when the provider itself
 * fails (daemon gone, sandbox vanished); ordinary file problems are SandboxFileError (readFile,
 * writeFile) or an output's record (collectOutputs); a command's non-zero exit is a result (exec).
 * Optional: execStream (without it an installed harness cannot reach its relay: the trial is
 * `config`), putFiles (default: writeFile per file, capabilities.ts) and fullFolder (without it a
 * full disk is not told from the agent's other failures).
 */
export interface TrialSandbox extends Sandbox {
  /** The provider's id of the sandbox (a container id). */
  readonly id: string;
  /**
   * After it, no agent process runs and none starts (exec and execStream are refused), and the files
   * stay readable (readFile, collectOutputs) until remove(): however the provider does it (Docker
   * freezes the processes). A provider that must ask again (a freeze the kernel refused) does so
   * until `signal` aborts: the stop phase's bound.
   */
  stop(options?: { signal?: AbortSignal }): Promise<void>;
  /** Copies the declared outputs out, each checked by type, path and size (outputs.ts); call after stop(). */
  collectOutputs(outputs: readonly DeclaredOutput[]): Promise<OutputFile[]>;
  /** Removes the sandbox and everything made for it. */
  remove(): Promise<void>;
  /** Copies files (with parent folders) into a folder of the sandbox, owned by the sandbox user. */
  putFiles?(dir: string, files: readonly PackFile[]): Promise<void>;
  /**
   * The provider's disk-full classification: the first place the agent can write to that is full
   * (under 1% of its blocks or of its inodes free), described with its use, or null; asked after the
   * agent phase, while the agent's processes still run. A failed agent phase with a full place is
   * the agent's `disk-full`.
   */
  fullFolder?(): Promise<string | null>;
}

/** The sandbox image (or an image derived from it) as built or found on a provider. */
export interface SandboxImage {
  /** What create() takes (a tag, or a registry reference). */
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

/** What a sweep, or a run's removal, did on one host of a provider. */
export interface HostSweep {
  /** The host's name (a provider without hosts: its `host`). */
  host: string;
  /** Sandboxes removed, with the run and trial of their labels. */
  removed: Array<{ id: string; run: string; trial: string }>;
  /** Disk volumes removed with them (a provider whose disks are apart from its sandboxes: Docker's). */
  volumes: string[];
  /** Why the host could not be swept; nothing was removed there. */
  error?: string;
}

/** One check of `kgate sandbox doctor`: what is there, and how to fix what is missing. */
export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** How to fix it, when not ok. */
  fix?: string;
}

/** The doctor's checks on one host of a provider. */
export interface HostReport {
  host: string;
  /** Where the host is reached (an endpoint), for people. */
  endpoint: string;
  /** Trials at once on this host; null for a provider without a limit of its own. */
  capacity: number | null;
  /** A host that does not answer is one failed check saying so. */
  checks: DoctorCheck[];
}

export interface SandboxProvider {
  /** Registered name, e.g. `docker`. */
  readonly name: string;
  /** Where sandboxes run: `local`, an endpoint (tcp://host:2376, ssh://user@host), a pool's names. */
  readonly host: string;
  /**
   * How the provider caps a sandbox's writable folders at the task's diskMb, by name (records say so:
   * `provenance.diskCap`; Docker: `tmpfs-volume`); absent, records say the disk was not capped.
   */
  readonly diskCap?: string;
  /**
   * Makes the sandbox image of the project's image source (image-source.ts: sandbox/ built, or a
   * registry reference pulled) available where sandboxes are created, once per provider unless
   * forced; on a pool, on the first host that answers, and place() loads it into the host of each
   * trial. Rejects with SandboxUnavailableError when the provider fails (AllHostsDownError: every host
   * of a pool), a plain Error when the build or pull itself fails or sandbox/ is unreadable.
   */
  prepareImage(
    paths: ProjectPaths,
    onProgress?: (line: string) => void,
    /** force: build even when an image of that tag exists (`kgate sandbox build`). */
    options?: { force?: boolean },
  ): Promise<SandboxImage>;
  /** Creates and starts a hardened sandbox (SandboxSpec); a failed start removes what was created. */
  create(spec: SandboxSpec): Promise<TrialSandbox>;
  /**
   * Builds or finds an image derived from the sandbox image (once per provider and tag), where
   * prepareImage put the sandbox image: on a pool, place() loads it into the host of each trial that
   * names it. Call after prepareImage (spec.base is its ref). Rejects like prepareImage. Without it,
   * installed harnesses cannot run on the provider (their trials are `config`).
   */
  prepareDerivedImage?(spec: DerivedImageSpec, onProgress?: (line: string) => void): Promise<SandboxImage>;
  /**
   * Pushes an image built here (a ref of prepareDerivedImage) to a registry as `target`
   * (`<registry>/<repository>:<tag>`) with the credentials the provider's own client configuration
   * holds for that registry (Docker: its config.json; none: anonymous), and returns the pushed
   * manifest's digest (`sha256:...`). Rejects with the registry's refusal. Without it, no image
   * leaves the provider (`kgate export harbor --for-training` says so).
   */
  pushImage?(ref: string, target: string, onProgress?: (line: string) => void): Promise<string>;
  /**
   * The content id of an image where prepareImage would look for it, or null when it is not there;
   * builds nothing. Rejects with SandboxUnavailableError when the provider does not answer. Without
   * it, `kgate agents` says it cannot tell whether the images are there.
   */
  findImage?(ref: string): Promise<string | null>;
  /**
   * Removes, on each host, what kgate processes that are gone left there (by LABEL_OWNER); a host
   * that does not answer is an entry with its error. Without it there is nothing to sweep.
   */
  reap?(): Promise<HostSweep[]>;
  /**
   * Removes every sandbox of run `runId` on each host (Ctrl-C: the run's sandboxes go at once, whatever
   * their trials are doing); a host that fails is an entry with its error. Without it, each trial
   * still removes its own sandbox as it ends.
   */
  removeRun?(runId: string): Promise<HostSweep[]>;
  /** What the sandbox needs on each host and how to fix what is missing (`kgate sandbox doctor`). */
  doctor?(paths: ProjectPaths): Promise<HostReport[]>;
  /**
   * A provider with hosts of limited capacity: reserves a slot for one trial on a host with room, with
   * `images` (the sandbox image or a derived one, by ref) loaded there from the host that built them,
   * and gives that host's provider. Rejects only with AllHostsDownError, once every host has stayed
   * down for the pool's grace period (the engine then stops the run); a cancelled wait, or an image
   * that cannot be loaded, gives a placement whose create fails with the reason. Without it, the
   * provider is its own one host.
   */
  place?(images: readonly string[], signal?: AbortSignal): Promise<Placement>;
}

/** One trial's slot on one host of a pool. */
export interface Placement {
  provider: SandboxProvider;
  /** Frees the slot (once). */
  release(): void;
}

/** The keys of kgate.config.json `sandbox` every provider has (config.ts checks them). */
export interface CommonSettings {
  provider: string;
  /** A registry reference to run instead of a build of sandbox/ (image-source.ts). */
  image?: string;
}

/**
 * A provider as kgate.config.json chooses it (config.ts, SANDBOX_PROVIDERS): the zod shape of its own
 * keys of `sandbox` (a key of no provider's shape is refused, naming the field), and how it is made
 * from the parsed section. Paths in the settings resolve from the project root.
 */
export interface ProviderRegistration<S extends z.ZodRawShape = z.ZodRawShape> {
  settings: S;
  create(settings: z.infer<z.ZodObject<S>> & CommonSettings, root: string): SandboxProvider;
}
