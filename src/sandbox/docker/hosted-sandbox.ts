// A trial's sandbox on one host of a pool: every call goes through the pool's guard, so a provider
// failure on a host that no longer answers becomes a HostDownError (the record's `host-down`).
import type { PackFile } from "../archive.ts";
import type { DeclaredOutput, OutputFile, TrialSandbox } from "../provider.ts";
import type { ExecOptions, ExecResult, ExecStream, ExecStreamOptions } from "../types.ts";
import type { DockerSandbox } from "./container.ts";

type Guard = <T>(fn: () => Promise<T>) => Promise<T>;

export class HostedSandbox implements TrialSandbox {
  constructor(
    private readonly inner: DockerSandbox,
    private readonly guard: Guard,
  ) {}

  get id(): string {
    return this.inner.id;
  }

  get workdir(): string {
    return this.inner.workdir;
  }

  exec(argv: string[], options?: ExecOptions): Promise<ExecResult> {
    return this.guard(() => this.inner.exec(argv, options));
  }

  execStream(argv: string[], options?: ExecStreamOptions): Promise<ExecStream> {
    return this.guard(() => this.inner.execStream(argv, options));
  }

  readFile(path: string, options?: { maxBytes?: number }): Promise<Buffer> {
    return this.guard(() => this.inner.readFile(path, options));
  }

  writeFile(path: string, content: string | Buffer, options?: { mode?: number }): Promise<void> {
    return this.guard(() => this.inner.writeFile(path, content, options));
  }

  putFiles(dir: string, files: readonly PackFile[]): Promise<void> {
    return this.guard(() => this.inner.putFiles(dir, files));
  }

  fullFolder(): Promise<string | null> {
    return this.guard(() => this.inner.fullFolder());
  }

  stop(options?: { signal?: AbortSignal }): Promise<void> {
    return this.guard(() => this.inner.stop(options));
  }

  collectOutputs(outputs: readonly DeclaredOutput[]): Promise<OutputFile[]> {
    return this.guard(() => this.inner.collectOutputs(outputs));
  }

  remove(): Promise<void> {
    return this.guard(() => this.inner.remove());
  }
}
