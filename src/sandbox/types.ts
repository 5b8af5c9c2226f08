// The sandbox as agents see it: exec, read and write files. Back-ends (local Docker now; remote
// Docker or Kubernetes later) implement this; nothing outside src/sandbox/ talks to Docker.

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

export interface Sandbox {
  /** Absolute path of the writable work directory inside the sandbox. */
  readonly workdir: string;
  /** Runs argv (no shell unless argv says so). A non-zero exit is a result, not an error. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Reads a file (relative paths are relative to the work directory). Throws SandboxFileError. */
  readFile(path: string, options?: { maxBytes?: number }): Promise<Buffer>;
  /** Writes a file, creating parent folders, owned by the sandbox user (mode 0644 unless given). */
  writeFile(path: string, content: string | Buffer, options?: { mode?: number }): Promise<void>;
}

/** The sandbox itself failed (daemon gone, container vanished, API error): an infrastructure error. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
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
