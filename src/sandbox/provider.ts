// The sandbox provider interface the trial engine uses without knowing Docker: create a hardened
// sandbox for a trial, exec, read and write files, stop every process, collect outputs, remove.
// Providers are registered by name (providers.ts) and chosen in kgate.config.json (`sandbox`).
import type { CollectedOutput, SandboxRequirements } from "../model/index.ts";
import type { ProjectPaths } from "../project.ts";
import type { Limits } from "../task/index.ts";
import type { PackFile } from "./archive.ts";
import type { DiskCapMechanism } from "./disk.ts";
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
   * The first writable folder that is full (under 1% of it free), described with its use, or null;
   * asked after the agent phase, while the agent's processes still run.
   */
  fullFolder?(): Promise<string | null>;
  /** Ends every process in the sandbox; its files stay readable until remove(). */
  stop(): Promise<void>;
  /** Copies the declared outputs out, each checked by type, path and size; call after stop(). */
  collectOutputs(outputs: readonly DeclaredOutput[]): Promise<OutputFile[]>;
  /** Removes the sandbox and everything in it. */
  remove(): Promise<void>;
}

/** The sandbox image as built or found on a provider. */
export interface SandboxImage {
  /** What create() takes (a tag). */
  ref: string;
  /** Content id (sha256:...) for provenance, and the base it was built on. */
  id: string | null;
  base: string | null;
}

export interface SandboxProvider {
  /** Registered name, e.g. `docker`. */
  readonly name: string;
  /** Where sandboxes run: `local`, or the endpoint (tcp://host:2376, ssh://user@host). */
  readonly host: string;
  /** How the provider caps a sandbox's writable folders at the task's diskMb (records say so). */
  readonly diskCap?: DiskCapMechanism;
  /** Builds or finds the sandbox image (once per process). Rejects with SandboxUnavailableError. */
  prepareImage(paths: ProjectPaths, onProgress?: (line: string) => void): Promise<SandboxImage>;
  /** Creates and starts a sandbox; a failed start removes what was created. */
  create(spec: SandboxSpec): Promise<TrialSandbox>;
  /** Removes what kgate processes that are gone left behind; returns how many sandboxes. */
  reap(): Promise<number>;
  /**
   * A pool of hosts: reserves a slot for one trial on a host with room (its images loaded there) and
   * gives that host's provider. Rejects only with AllHostsDownError, once every host has stayed down
   * for the pool's grace period (the engine then stops the run); a cancelled wait gives a placement
   * whose create fails.
   */
  place?(images: readonly string[], signal?: AbortSignal): Promise<Placement>;
}

/** One trial's slot on one host of a pool. */
export interface Placement {
  provider: SandboxProvider;
  /** Frees the slot (once). */
  release(): void;
}
