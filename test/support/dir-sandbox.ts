// Test support: a Sandbox over a host temp folder (real processes, real files) for unit tests of the
// tool loop; the Docker back-end is exercised by the end-to-end tests.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type ExecOptions,
  type ExecResult,
  type Sandbox,
  SandboxFileError,
} from "../../src/sandbox/types.ts";
import { afterThis } from "./cleanups.ts";

export class DirSandbox implements Sandbox {
  readonly workdir: string;

  constructor(files: Record<string, string> = {}) {
    this.workdir = mkdtempSync(path.join(tmpdir(), "kgate-dirsandbox-"));
    const dir = this.workdir;
    afterThis("test", () => rmSync(dir, { recursive: true, force: true }));
    for (const [p, content] of Object.entries(files)) this.put(p, content);
  }

  private resolve(p: string): string {
    const abs = path.resolve(this.workdir, p);
    if (abs !== this.workdir && !abs.startsWith(`${this.workdir}/`)) {
      throw new SandboxFileError(p, "outside-workdir", `${p} is outside the work directory`);
    }
    return abs;
  }

  private put(p: string, content: string | Buffer): void {
    const abs = this.resolve(p);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }

  exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const cap = options.maxOutputBytes ?? 1024 * 1024;
    const started = Date.now();
    const full = options.timeoutSec ? ["timeout", "-k", "2", `${options.timeoutSec}s`, ...argv] : argv;
    return new Promise((resolve, reject) => {
      const child = spawn(full[0]!, full.slice(1), {
        cwd: options.cwd ?? this.workdir,
        env: { PATH: process.env.PATH, HOME: this.workdir, ...options.env },
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (c: Buffer) => out.push(c));
      child.stderr.on("data", (c: Buffer) => err.push(c));
      child.on("error", reject);
      const onAbort = () => {
        child.kill("SIGKILL");
        reject(options.signal?.reason);
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener("abort", onAbort, { once: true });
      // A command that exits before reading its input closes the pipe: that is not an error.
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin ?? "");
      child.on("close", (code, signal) => {
        options.signal?.removeEventListener("abort", onAbort);
        const stdout = Buffer.concat(out);
        const stderr = Buffer.concat(err);
        const exitCode = code ?? (signal ? 128 : 1);
        resolve({
          exitCode,
          stdout: stdout.subarray(0, cap).toString("utf8"),
          stderr: stderr.subarray(0, cap).toString("utf8"),
          stdoutTruncated: stdout.length > cap,
          stderrTruncated: stderr.length > cap,
          timedOut: options.timeoutSec !== undefined && (exitCode === 124 || exitCode === 137),
          durationMs: Date.now() - started,
        });
      });
    });
  }

  async readFile(p: string, options: { maxBytes?: number } = {}): Promise<Buffer> {
    const abs = this.resolve(p);
    let size: number;
    try {
      const st = statSync(abs);
      if (!st.isFile()) throw new SandboxFileError(p, "not-a-file", `${p} is not a regular file`);
      size = st.size;
    } catch (e) {
      if (e instanceof SandboxFileError) throw e;
      throw new SandboxFileError(p, "missing", `${p}: no such file`);
    }
    if (options.maxBytes !== undefined && size > options.maxBytes) {
      throw new SandboxFileError(p, "too-large", `${p} is larger than ${options.maxBytes} bytes`);
    }
    return readFileSync(abs);
  }

  async writeFile(p: string, content: string | Buffer): Promise<void> {
    this.put(p, content);
  }
}
