// The sandbox as agents see it: exec (and a streaming exec), read and write files, and the errors
// every sandbox call tells apart (the provider failed, or one of its hosts went down; an ordinary file
// problem). Each provider's TrialSandbox (provider.ts) implements it.
import type { Readable, Writable } from "node:stream";

export interface ExecOptions {
  /** Working directory inside the sandbox; defaults to the work directory. */
  cwd?: string;
  env?: Record<string, string>;
  /** Enforced inside the sandbox (timeout -k) with slack on the host side. */
  timeoutSec?: number;
  /** Bytes kept of stdout and of stderr each; the rest is dropped and the truncation marked. */
  maxOutputBytes?: number;
  stdin?: string | Buffer;
  /** Abandons the command: exec rejects with the signal's reason (the process is ended with the sandbox). */
  signal?: AbortSignal;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  durationMs: number;
}

/** Options of a streaming exec: no timeout of its own (it lives until closed or the sandbox stops). */
export interface ExecStreamOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Bytes of stderr kept (the head); the rest is dropped. */
  maxStderrBytes?: number;
}

/**
 * A running command whose stdin and stdout are byte streams (stdout with backpressure: a paused
 * reader pauses the transport); stderr is kept, capped. The command's bytes are untrusted.
 */
export interface ExecStream {
  stdin: Writable;
  stdout: Readable;
  /** stderr so far (capped). */
  stderr(): string;
  /** The exit code once the command ends (null if it ended unseen); rejects with SandboxUnavailableError. */
  exit: Promise<number | null>;
  /** Ends the session (the command sees its stdin close); idempotent. */
  close(): void;
}

export interface Sandbox {
  /** Absolute path of the writable work directory inside the sandbox. */
  readonly workdir: string;
  /** Runs argv (no shell unless argv says so). A non-zero exit is a result, not an error. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /**
   * Starts argv with stdin and stdout as streams (an installed harness's relay channel). Providers
   * that cannot stream leave it out; rejects with SandboxUnavailableError when the provider fails.
   */
  execStream?(argv: string[], options?: ExecStreamOptions): Promise<ExecStream>;
  /** Reads a file (relative paths are relative to the work directory). Throws SandboxFileError. */
  readFile(path: string, options?: { maxBytes?: number }): Promise<Buffer>;
  /** Writes a file, creating parent folders, owned by the sandbox user (mode 0644 unless given). */
  writeFile(path: string, content: string | Buffer, options?: { mode?: number }): Promise<void>;
}

/** The sandbox itself failed (daemon gone, container vanished, API error): an infrastructure error. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

/**
 * The provider answered a call with an error (a container vanished, the API refused the call): the
 * sandbox failed, infrastructure (the record's `sandbox`). `status` is the provider's own code for it,
 * if it has one (Docker: the HTTP status of the Engine API's answer).
 */
export class SandboxApiError extends Error {
  override name = "SandboxApiError";
  constructor(
    message: string,
    readonly status: number | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A host of a provider with hosts stopped answering while a trial used it (the record's `host-down`). */
export class HostDownError extends SandboxUnavailableError {
  override name = "HostDownError";
}

/** Every host of a provider is down: the message lists each with its reason; the engine stops the run. */
export class AllHostsDownError extends HostDownError {
  override name = "AllHostsDownError";
}

/** An ordinary file problem inside a working sandbox: missing, too large, not a regular file, unreadable. */
export class SandboxFileError extends Error {
  override name = "SandboxFileError";
  constructor(
    readonly path: string,
    readonly reason: "missing" | "too-large" | "not-a-file" | "outside-workdir" | "unreadable",
    message: string,
  ) {
    super(message);
  }
}
