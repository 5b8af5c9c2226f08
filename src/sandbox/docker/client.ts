// The one file that talks to the Docker Engine API (through dockerode): a narrow client for the rest
// of src/sandbox; how its calls fail is calls.ts.
import type { Readable, Writable } from "node:stream";
import Docker from "dockerode";
import { type ExecStream, SandboxUnavailableError } from "../types.ts";
import {
  call,
  execCall,
  FREEZE_RETRY_MS,
  followProgress,
  freezeRefused,
  type ProgressLine,
  pauseFor,
  statusOf,
  unavailable,
} from "./calls.ts";
import { ExecStarts, exitCodeOf, startTracked } from "./exec-starts.ts";
import { attachSession } from "./exec-stream.ts";
import type { RegistryAuth } from "./registry-auth.ts";

/** A hardened container as the lifecycle asks for it; translated to the Engine API here. */
export interface ContainerSpec {
  image: string;
  cmd: string[];
  user: string;
  workdir: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  network: boolean;
  memoryBytes: number;
  nanoCpus: number;
  pids: number;
  readOnlyRoot: boolean;
  /**
   * Anonymous volumes of the `local` driver (the capped tmpfs volumes of disk.ts): created with the
   * container, labelled (the reaper finds a leftover by its labels), mounted without copy-up,
   * removed with the container (removeContainer passes `v`).
   */
  volumes: Array<{ target: string; labels: Record<string, string>; options: Record<string, string> }>;
  tmpfs: Record<string, string>;
}

export interface ContainerSummary {
  id: string;
  labels: Record<string, string>;
  state: string;
}

/** What the archive API says about a path inside a container (X-Docker-Container-Path-Stat). */
export interface PathStat {
  name: string;
  size: number;
  /** Go os.FileMode bits: 1<<31 directory, 1<<27 symlink, plus the permission bits. */
  mode: number;
  linkTarget: string;
}

export interface ExecSpec {
  argv: string[];
  user: string;
  cwd: string;
  env: Record<string, string>;
  stdin?: Buffer;
}

export interface BuildSpec {
  tag: string;
  buildargs: Record<string, string>;
  labels: Record<string, string>;
}

/** A tar stream to send (tar-stream / tar-fs packs are streamx streams with a compatible pipe()). */
export interface TarSource {
  pipe(...args: never[]): unknown;
}

/** Bits of Go's os.FileMode (numbers above 2^31 do not survive JS bit operators, hence the division). */
const hasBit = (mode: number, bit: number) => Math.floor(mode / 2 ** bit) % 2 === 1;
export function isDirectoryMode(mode: number): boolean {
  return hasBit(mode, 31);
}

export function isSymlinkMode(mode: number): boolean {
  return hasBit(mode, 27);
}

function toEnv(env: Record<string, string>): string[] {
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}

export class DockerClient {
  private readonly docker: Docker;
  /** Execs whose process may still be starting: a pause waits for them (exec-starts.ts). */
  private readonly starts = new ExecStarts();

  constructor(options?: Docker.DockerOptions) {
    this.docker = new Docker(options);
  }

  async ping(): Promise<void> {
    await call("ping", () => this.docker.ping());
  }

  async info(): Promise<{ serverVersion: string; apiVersion: string; cgroupVersion: string; os: string }> {
    const [info, version] = await call("info", () =>
      Promise.all([this.docker.info(), this.docker.version()]),
    );
    return {
      serverVersion: String(info.ServerVersion ?? version.Version),
      apiVersion: String(version.ApiVersion),
      cgroupVersion: String(info.CgroupVersion ?? "1"),
      os: String(info.OperatingSystem ?? ""),
    };
  }

  async imageExists(ref: string): Promise<boolean> {
    return (await this.imageId(ref)) !== null;
  }

  /** The image's id, or null when there is no such image. */
  async imageId(ref: string): Promise<string | null> {
    try {
      return (await this.docker.getImage(ref).inspect()).Id;
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw unavailable(err, "image inspect");
    }
  }

  /** The image's labels ({} when it has none or does not exist). */
  async imageLabels(ref: string): Promise<Record<string, string>> {
    try {
      return (await this.docker.getImage(ref).inspect()).Config?.Labels ?? {};
    } catch (err) {
      if (statusOf(err) === 404) return {};
      throw unavailable(err, "image inspect");
    }
  }

  /** Removes an image by id; an image still in use or already gone is left alone. */
  async removeImage(id: string): Promise<void> {
    try {
      await this.docker.getImage(id).remove();
    } catch (err) {
      if (statusOf(err) === 404 || statusOf(err) === 409) return;
      throw unavailable(err, "image remove");
    }
  }

  async pullImage(ref: string, onLine?: ProgressLine): Promise<void> {
    const stream = await call("pull", () => this.docker.pull(ref));
    await followProgress(this.docker, stream, onLine);
  }

  /** Imports a root filesystem tarball as an image (POST /images/create?fromSrc=-). */
  async importImage(
    tarball: TarSource,
    ref: string,
    changes: string[],
    onLine?: ProgressLine,
  ): Promise<void> {
    const [repo, tag] = ref.split(":");
    const stream = await call("import", () =>
      this.docker.importImage(tarball as unknown as NodeJS.ReadableStream, { repo, tag, changes }),
    );
    await followProgress(this.docker, stream, onLine);
  }

  /**
   * Tags `ref` as `target` (repository:tag) and pushes it with `auth` (null: anonymous); returns the
   * pushed manifest's digest, which the daemon records among the image's RepoDigests.
   */
  async pushImage(
    ref: string,
    target: string,
    auth: RegistryAuth | null,
    onLine?: ProgressLine,
  ): Promise<string> {
    const colon = target.lastIndexOf(":");
    const [repo, tag] = [target.slice(0, colon), target.slice(colon + 1)];
    await call("tag", () => this.docker.getImage(ref).tag({ repo, tag }));
    const stream = await call("push", () => this.docker.getImage(target).push({ authconfig: auth ?? {} }));
    await followProgress(this.docker, stream, onLine);
    const digests =
      (await call("image inspect", () => this.docker.getImage(target).inspect())).RepoDigests ?? [];
    const pushed = digests.find((d) => d.startsWith(`${repo}@`));
    if (!pushed)
      throw new Error(`the push of ${target} left no digest (RepoDigests: ${digests.join(", ") || "none"})`);
    return pushed.slice(repo.length + 1);
  }

  /** Streams an image as a `docker save` tarball (to load it into another daemon). */
  async saveImage(ref: string): Promise<NodeJS.ReadableStream> {
    return call("image save", () => this.docker.getImage(ref).get());
  }

  /** Loads a `docker save` tarball (POST /images/load). */
  async loadImage(tarball: NodeJS.ReadableStream): Promise<void> {
    const stream = await call("image load", () => this.docker.loadImage(tarball));
    await followProgress(this.docker, stream).catch((err: Error) => {
      throw unavailable(err, "image load");
    });
  }

  /** Builds an image from a build-context tarball with the classic builder. */
  async buildImage(context: TarSource, spec: BuildSpec, onLine?: ProgressLine): Promise<void> {
    const stream = await call("build", () =>
      this.docker.buildImage(context as unknown as NodeJS.ReadableStream, {
        t: spec.tag,
        buildargs: spec.buildargs,
        labels: spec.labels,
        rm: true,
        forcerm: true,
      }),
    );
    await followProgress(this.docker, stream, onLine);
  }

  /**
   * Builds `spec.tag`, logging each Dockerfile step; a failed build throws with the last 30 lines
   * of its output, a build that tags nothing throws too. Returns the new image's id.
   */
  async buildTaggedImage(context: TarSource, spec: BuildSpec, log: (line: string) => void): Promise<string> {
    const tail: string[] = [];
    await this.buildImage(context, spec, (line) => {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      if (/^Step \d+\/\d+ :/.test(line)) log(`build: ${line}`);
    }).catch((err: Error) => {
      throw new Error(
        `the build of ${spec.tag} failed: ${err.message}\nlast build output:\n${tail.join("\n")}`,
      );
    });
    const built = await this.imageId(spec.tag);
    if (!built) throw new Error(`the build of ${spec.tag} produced no image`);
    return built;
  }

  async createContainer(spec: ContainerSpec): Promise<string> {
    const container = await call("create", () =>
      this.docker.createContainer({
        Image: spec.image,
        Cmd: spec.cmd,
        User: spec.user,
        WorkingDir: spec.workdir,
        Env: toEnv(spec.env),
        Labels: spec.labels,
        NetworkDisabled: !spec.network,
        HostConfig: {
          NetworkMode: spec.network ? "bridge" : "none",
          CapDrop: ["ALL"],
          SecurityOpt: ["no-new-privileges"],
          Memory: spec.memoryBytes,
          MemorySwap: spec.memoryBytes,
          NanoCpus: spec.nanoCpus,
          PidsLimit: spec.pids,
          ReadonlyRootfs: spec.readOnlyRoot,
          Tmpfs: spec.tmpfs,
          Mounts: spec.volumes.map((v) => ({
            Type: "volume" as const,
            // No source: an anonymous volume, which `rm -v` removes with the container.
            Source: "",
            Target: v.target,
            VolumeOptions: {
              NoCopy: true,
              Labels: v.labels,
              DriverConfig: { Name: "local", Options: v.options },
            },
          })),
          AutoRemove: false,
          LogConfig: { Type: "none", Config: {} },
        },
      }),
    );
    return container.id;
  }

  /** A container of `image` that is never started: its file system is read through the archive API. */
  async createSeedContainer(image: string, labels: Record<string, string>): Promise<string> {
    const container = await call("create", () =>
      this.docker.createContainer({
        Image: image,
        Cmd: ["true"],
        Labels: labels,
        NetworkDisabled: true,
        HostConfig: { NetworkMode: "none", LogConfig: { Type: "none", Config: {} } },
      }),
    );
    return container.id;
  }

  /** A volume of the `local` driver with mount options (a sized tmpfs), labelled like containers. */
  async createVolume(name: string, labels: Record<string, string>, options: Record<string, string>) {
    await call("volume create", () =>
      this.docker.createVolume({ Name: name, Driver: "local", DriverOpts: options, Labels: labels }),
    );
  }

  /** Removes a volume; a missing one is fine. `signal` abandons the call (the reaper's bound). */
  async removeVolume(name: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.docker.getVolume(name).remove({ abortSignal: signal });
    } catch (err) {
      if (statusOf(err) === 404) return;
      throw unavailable(err, "volume remove");
    }
  }

  async listVolumes(
    labels: string[],
    signal?: AbortSignal,
  ): Promise<Array<{ name: string; labels: Record<string, string> }>> {
    const list = await call("volume list", () =>
      this.docker.listVolumes({ filters: JSON.stringify({ label: labels }), abortSignal: signal }),
    );
    return (list.Volumes ?? []).map((v) => ({ name: v.Name, labels: v.Labels ?? {} }));
  }

  async startContainer(id: string): Promise<void> {
    await call("start", () => this.docker.getContainer(id).start());
  }

  /**
   * Freezes every process of the container (cgroup freezer); one that is not running is fine. New
   * execs are refused from now on, and those starting are let start first. A freeze the kernel could
   * not complete (freezeRefused) is asked again until `signal` aborts (else for FREEZE_RETRY_MS).
   */
  async pauseContainer(id: string, signal?: AbortSignal): Promise<void> {
    await this.starts.freeze(id);
    const bound = signal ?? AbortSignal.timeout(FREEZE_RETRY_MS);
    for (let attempt = 1, delay = 50; ; attempt++, delay = Math.min(delay * 2, 1000)) {
      try {
        await this.docker.getContainer(id).pause();
        return;
      } catch (err) {
        if (statusOf(err) === 409 || statusOf(err) === 404) return;
        if (!freezeRefused(err)) throw unavailable(err, "pause");
        if (!(await pauseFor(delay, bound)))
          throw new SandboxUnavailableError(
            `Docker pause failed ${attempt} time(s) before the stop's bound: ${(err as Error).message.trim()}`,
            { cause: err },
          );
      }
    }
  }

  /** Force-removes a container and its anonymous volumes; a missing container is fine. */
  async removeContainer(id: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true, abortSignal: signal });
      this.starts.forget(id);
    } catch (err) {
      if (statusOf(err) === 404) return;
      // 409: removal already in progress (e.g. the reaper and the trial at once).
      if (statusOf(err) === 409 && /already in progress/.test((err as Error).message)) return;
      throw unavailable(err, "remove");
    }
  }

  async listContainers(labels: string[], signal?: AbortSignal): Promise<ContainerSummary[]> {
    const list = await call("list", () =>
      this.docker.listContainers({
        all: true,
        filters: JSON.stringify({ label: labels }),
        abortSignal: signal,
      }),
    );
    return list.map((c) => ({ id: c.Id, labels: c.Labels ?? {}, state: c.State }));
  }

  /**
   * Runs argv in a running container, streaming demultiplexed stdout/stderr into the sinks.
   * Resolves with the exit code when the process ends; `signal` abandons the wait (the process
   * keeps running inside the container until the container is killed).
   */
  async exec(
    id: string,
    spec: ExecSpec,
    sinks: { stdout: Writable; stderr: Writable },
    signal: AbortSignal,
  ): Promise<number | null> {
    const { stream, exitCode, done } = await this.startExec(id, spec, spec.stdin !== undefined);
    stream.once("close", done);
    const ended = new Promise<boolean>((resolve, reject) => {
      const onAbort = () => {
        stream.destroy();
        resolve(false);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      stream.on("end", () => resolve(true));
      stream.on("close", () => resolve(true));
      stream.on("error", (err) => (signal.aborted ? resolve(false) : reject(unavailable(err, "exec"))));
    });
    this.docker.modem.demuxStream(stream, sinks.stdout, sinks.stderr);
    if (spec.stdin !== undefined) stream.end(spec.stdin);
    return (await ended) ? exitCode() : null;
  }

  /**
   * Starts argv in a running container with stdin attached, over the hijacked connection; the
   * session's stdout is demultiplexed with backpressure (exec-stream.ts).
   */
  async execStream(id: string, spec: Omit<ExecSpec, "stdin">, maxStderrBytes: number): Promise<ExecStream> {
    const { stream, exitCode, done } = await this.startExec(id, spec, true);
    stream.once("close", done);
    return attachSession(stream, exitCode, maxStderrBytes);
  }

  /**
   * Creates and starts an exec (hijacked); `exitCode` asks the daemon once the stream has ended.
   * Until `done`, a pause of the container first waits for the process to have started.
   */
  private async startExec(id: string, spec: Omit<ExecSpec, "stdin">, stdin: boolean) {
    const { exec, stream, done } = await startTracked(
      this.starts,
      id,
      () =>
        execCall("exec", () =>
          this.docker.getContainer(id).exec({
            Cmd: spec.argv,
            User: spec.user,
            WorkingDir: spec.cwd,
            Env: toEnv(spec.env),
            AttachStdin: stdin,
            AttachStdout: true,
            AttachStderr: true,
            Tty: false,
          }),
        ),
      (created) => execCall("exec start", () => created.start({ hijack: true, stdin })),
    );
    return { stream, exitCode: () => exitCodeOf(exec), done };
  }

  /** Extracts a tarball into a folder of the container (which must exist). */
  async putArchive(id: string, dir: string, tarball: TarSource): Promise<void> {
    await call("put archive", () =>
      this.docker.getContainer(id).putArchive(tarball as unknown as NodeJS.ReadableStream, { path: dir }),
    );
  }

  /** A tarball of one path of the container; null when the path does not exist. */
  async getArchive(id: string, path: string): Promise<Readable | null> {
    try {
      return (await this.docker.getContainer(id).getArchive({ path })) as unknown as Readable;
    } catch (err) {
      if (statusOf(err) === 404 && (await this.containerExists(id))) return null;
      throw unavailable(err, "get archive");
    }
  }

  /** Stats a path without transferring it (HEAD archive); null when it does not exist. */
  async statPath(id: string, path: string): Promise<PathStat | null> {
    let res: { headers: Record<string, string | string[] | undefined>; resume(): void };
    try {
      res = (await this.docker.getContainer(id).infoArchive({ path })) as unknown as typeof res;
    } catch (err) {
      if (statusOf(err) === 404 && (await this.containerExists(id))) return null;
      throw unavailable(err, "stat");
    }
    res.resume();
    const header = res.headers["x-docker-container-path-stat"];
    if (typeof header !== "string")
      throw new SandboxUnavailableError(`Docker stat of ${path}: no stat header`);
    const stat = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    return { name: stat.name, size: stat.size, mode: stat.mode, linkTarget: stat.linkTarget ?? "" };
  }

  private async containerExists(id: string): Promise<boolean> {
    try {
      await this.docker.getContainer(id).inspect();
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw unavailable(err, "inspect");
    }
  }
}
