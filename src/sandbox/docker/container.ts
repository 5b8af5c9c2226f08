// One hardened container per trial, behind the Sandbox interface: create/start (with its capped disk),
// exec with timeout and output caps, read and write files through tar archives, freeze and remove.
import path from "node:path";
import { Readable } from "node:stream";
import { ownerLabel } from "../../common/index.ts";
import type { SandboxRequirements } from "../../record/index.ts";
import { diskMbOf, type Limits } from "../../task/index.ts";
import { type PackFile, packFiles, readSingleEntry, seededPack, tarBody } from "../archive.ts";
import { CappedSink } from "../capture.ts";
import { LABEL, LABEL_OWNER } from "../labels.ts";
import { SANDBOX_GID, SANDBOX_HOME, SANDBOX_UID, SANDBOX_WORKDIR } from "../layout.ts";
import { collectOutputs, type PathInfo } from "../outputs.ts";
import type { DeclaredOutput, OutputFile, TrialSandbox } from "../provider.ts";
import {
  type ExecOptions,
  type ExecResult,
  type ExecStream,
  type ExecStreamOptions,
  SandboxFileError,
} from "../types.ts";
import { type ContainerSpec, DockerClient, isDirectoryMode, isSymlinkMode } from "./client.ts";
import { containerTmpfs, imageSeed, tmpfsVolumeOptions, writablePlaces } from "./disk.ts";
import { reapDeadRunsOnce } from "./reaper.ts";

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024;
/**
 * PID 1 of every sandbox: bash waiting on a long sleep, which also reaps the orphans that exec'd
 * commands leave behind (so they do not pile up as zombies against the pids limit). Cheaper to
 * start than Docker's --init.
 */
export const KEEPALIVE = ["bash", "-c", "trap 'exit 0' TERM; while :; do sleep 86400 & wait $!; done"];
/**
 * The same PID 1 with a deadline of its own: it exits after `seconds`, which stops the container and
 * every process in it, so a sandbox orphaned by a killed kgate ends by itself.
 */
export function keepaliveFor(seconds: number): string[] {
  const s = Math.max(1, Math.ceil(seconds));
  return [
    "bash",
    "-c",
    `trap 'exit 0' TERM; end=$((SECONDS+${s})); while [ $SECONDS -lt $end ]; do sleep $((end-SECONDS)) & wait $!; done`,
  ];
}
/** Seconds between timeout's TERM and KILL, and the host-side slack on top of both. */
const KILL_AFTER_SEC = 5;
const HOST_SLACK_SEC = 15;

export interface ContainerOptions {
  image: string;
  limits: Pick<Limits, "cpus" | "memoryMb" | "pids"> & Partial<Pick<Limits, "diskMb">>;
  /** PID 1 exits after this many seconds (a trial's budget: sandboxDeadlineSec); absent: no deadline. */
  deadlineSec?: number | undefined;
  /** Off unless the task asks for it (task.json `network`). */
  network?: boolean;
  labels: Record<string, string>;
  requirements?: SandboxRequirements;
  docker?: DockerClient;
}

function resolveIn(base: string, p: string): string {
  return p.startsWith("/") ? path.posix.normalize(p) : path.posix.join(base, p);
}

function isUnder(root: string, p: string): boolean {
  return p === root || p.startsWith(`${root}/`);
}

export class DockerSandbox implements TrialSandbox {
  readonly workdir = SANDBOX_WORKDIR;

  private constructor(
    readonly id: string,
    private readonly docker: DockerClient,
    /** Folders that are volumes (writable through the archive API). */
    readonly writableRoots: readonly string[],
    private readonly env: Record<string, string>,
    /**
     * The image's seed of each volume not yet copied in: the first putFiles into a volume sends it
     * in the same archive as its files; every other call into the container first sends them all.
     */
    private readonly pending: Map<string, Buffer>,
  ) {}

  /** The seeds sent so far (a failure stays: a sandbox without its home is no sandbox). */
  private seeding: Promise<void> = Promise.resolve();

  /** Sends the seeds still pending; every call into the container waits for them. */
  private seeded(): Promise<void> {
    if (this.pending.size > 0) {
      const seeds = [...this.pending];
      this.pending.clear();
      const sent = this.seeding;
      this.seeding = Promise.all([
        sent,
        ...seeds.map(([root, seed]) => this.docker.putArchive(this.id, root, Readable.from([seed]))),
      ]).then(() => {});
    }
    return this.seeding;
  }

  /**
   * Creates and starts a hardened container whose writable folders are capped tmpfs volumes, made
   * and removed with it; what the image holds at each is copied in before anything else touches
   * the container (with the first putFiles there). A failed start removes what was created.
   */
  static async create(options: ContainerOptions): Promise<DockerSandbox> {
    const docker = options.docker ?? new DockerClient();
    // A failed sweep must not stop a trial: the next command sweeps again.
    await reapDeadRunsOnce(docker).catch(() => null);
    const req = options.requirements ?? {};
    const image = req.image ?? options.image;
    const roots = [SANDBOX_HOME, ...(req.writable ?? [])];
    const mountOptions = tmpfsVolumeOptions(diskMbOf(options.limits), SANDBOX_UID, SANDBOX_GID);
    const volumes = roots.map((target) => ({ target, labels: options.labels, options: mountOptions }));
    // The seed container belongs to no run or trial (one serves every sandbox of the image): only
    // kgate's label and owner, so a dead owner's is still swept and no run counts it as its own.
    const seedLabels = { [LABEL]: "1", [LABEL_OWNER]: options.labels[LABEL_OWNER] ?? ownerLabel() };
    const seeds = await Promise.all(roots.map((dir) => imageSeed(docker, image, dir, seedLabels)));
    let id: string | undefined;
    try {
      id = await DockerSandbox.createContainer(docker, options, image, volumes);
      await docker.startContainer(id);
    } catch (err) {
      // The volumes go with the container (rm -v); a failed create is undone by the daemon, and the
      // reaper finds any leftover volume by its labels.
      if (id) await docker.removeContainer(id).catch(() => {});
      throw err;
    }
    const pending = new Map<string, Buffer>();
    for (const [i, seed] of seeds.entries()) if (seed) pending.set(roots[i]!, seed);
    return new DockerSandbox(id, docker, roots, req.env ?? {}, pending);
  }

  private static createContainer(
    docker: DockerClient,
    options: ContainerOptions,
    image: string,
    volumes: ContainerSpec["volumes"],
  ): Promise<string> {
    const req = options.requirements ?? {};
    const memoryMb = options.limits.memoryMb;
    const deadline = options.deadlineSec;
    return docker.createContainer({
      image,
      cmd: deadline === undefined ? KEEPALIVE : keepaliveFor(deadline),
      user: `${SANDBOX_UID}:${SANDBOX_GID}`,
      workdir: SANDBOX_WORKDIR,
      env: req.env ?? {},
      labels: options.labels,
      network: options.network ?? false,
      memoryBytes: memoryMb * 1024 * 1024,
      nanoCpus: Math.round(options.limits.cpus * 1e9),
      pids: options.limits.pids,
      readOnlyRoot: true,
      volumes,
      tmpfs: containerTmpfs(memoryMb),
    });
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    if (argv.length === 0) throw new Error("exec needs a command");
    await this.seeded();
    const cap = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
    const stdout = new CappedSink(cap);
    const stderr = new CappedSink(cap);
    const timeoutSec = options.timeoutSec;
    const command =
      timeoutSec === undefined ? argv : ["timeout", "-k", `${KILL_AFTER_SEC}s`, `${timeoutSec}s`, ...argv];
    const host = new AbortController();
    const hostTimer =
      timeoutSec === undefined
        ? undefined
        : setTimeout(() => host.abort(), (timeoutSec + KILL_AFTER_SEC + HOST_SLACK_SEC) * 1000);
    const signals = options.signal ? [host.signal, options.signal] : [host.signal];
    const started = performance.now();
    let exitCode: number | null;
    try {
      exitCode = await this.docker.exec(
        this.id,
        {
          argv: command,
          user: `${SANDBOX_UID}:${SANDBOX_GID}`,
          cwd: resolveIn(this.workdir, options.cwd ?? "."),
          env: { ...this.env, ...options.env },
          stdin: typeof options.stdin === "string" ? Buffer.from(options.stdin) : options.stdin,
        },
        { stdout, stderr },
        AbortSignal.any(signals),
      );
    } finally {
      clearTimeout(hostTimer);
    }
    options.signal?.throwIfAborted();
    const durationMs = performance.now() - started;
    const hostTimedOut = host.signal.aborted;
    const code = hostTimedOut ? 124 : (exitCode ?? -1);
    const timedOut =
      hostTimedOut ||
      (timeoutSec !== undefined && (code === 124 || code === 137) && durationMs >= timeoutSec * 1000 - 50);
    return {
      exitCode: code,
      stdout: stdout.text(),
      stderr: hostTimedOut
        ? `${stderr.text()}\n[kgate: the command did not end; host-side timeout]`
        : stderr.text(),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      timedOut,
      durationMs,
    };
  }

  /** argv with stdin and stdout as streams, as the sandbox user; ends when closed or the container stops. */
  async execStream(argv: string[], options: ExecStreamOptions = {}): Promise<ExecStream> {
    if (argv.length === 0) throw new Error("execStream needs a command");
    await this.seeded();
    return this.docker.execStream(
      this.id,
      {
        argv,
        user: `${SANDBOX_UID}:${SANDBOX_GID}`,
        cwd: resolveIn(this.workdir, options.cwd ?? "."),
        env: { ...this.env, ...options.env },
      },
      options.maxStderrBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    );
  }

  /** Absolute path in the container; relative paths may not leave the work directory. */
  private resolve(p: string): string {
    const abs = resolveIn(this.workdir, p);
    if (!p.startsWith("/") && !isUnder(this.workdir, abs)) {
      throw new SandboxFileError(p, "outside-workdir", `${p} leaves the work directory ${this.workdir}`);
    }
    return abs;
  }

  /** What a path is (a link not followed); null when missing. */
  async stat(p: string): Promise<PathInfo | null> {
    const abs = this.resolve(p);
    await this.seeded();
    const stat = await this.docker.statPath(this.id, abs);
    if (!stat) return null;
    const type = isSymlinkMode(stat.mode) ? "symlink" : isDirectoryMode(stat.mode) ? "directory" : "file";
    return { type, size: stat.size, linkTarget: stat.linkTarget };
  }

  /**
   * A tar stream of one path (null when missing), for callers that check the entry themselves. Read
   * it to the end or destroy it: Docker keeps the container locked until then.
   */
  async archive(p: string): Promise<Readable | null> {
    const abs = this.resolve(p);
    await this.seeded();
    return this.docker.getArchive(this.id, abs);
  }

  async readFile(p: string, options: { maxBytes?: number } = {}): Promise<Buffer> {
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
    let abs = this.resolve(p);
    await this.seeded();
    let stat = await this.docker.statPath(this.id, abs);
    if (stat && isSymlinkMode(stat.mode) && stat.linkTarget) {
      abs = stat.linkTarget;
      stat = await this.docker.statPath(this.id, abs);
    }
    if (!stat) throw new SandboxFileError(p, "missing", `${p} does not exist in the sandbox`);
    if (isDirectoryMode(stat.mode) || isSymlinkMode(stat.mode)) {
      throw new SandboxFileError(p, "not-a-file", `${p} is not a regular file`);
    }
    if (stat.size > maxBytes) {
      throw new SandboxFileError(p, "too-large", `${p} is ${stat.size} bytes, over the limit of ${maxBytes}`);
    }
    const archive = await this.docker.getArchive(this.id, abs);
    if (!archive) throw new SandboxFileError(p, "missing", `${p} does not exist in the sandbox`);
    const entry = await readSingleEntry(archive, maxBytes, path.posix.basename(abs));
    if (entry.kind === "file") return entry.bytes;
    if (entry.kind === "unreadable") {
      throw new SandboxFileError(
        p,
        "unreadable",
        `${p} could not be read from the sandbox (${entry.reason})`,
      );
    }
    if (entry.kind === "too-large") {
      throw new SandboxFileError(
        p,
        "too-large",
        `${p} is ${entry.size} bytes, over the limit of ${maxBytes}`,
      );
    }
    throw new SandboxFileError(p, "not-a-file", `${p} is not a regular file`);
  }

  async writeFile(p: string, content: string | Buffer, options: { mode?: number } = {}): Promise<void> {
    const abs = this.resolve(p);
    const root = this.writableRoots.find((r) => isUnder(r, abs) && r !== abs);
    if (!root) {
      throw new SandboxFileError(
        p,
        "outside-workdir",
        `${p} is not in a writable location of the sandbox (${this.writableRoots.join(", ")})`,
      );
    }
    const bytes = typeof content === "string" ? Buffer.from(content) : content;
    await this.putFiles(root, [{ path: path.posix.relative(root, abs), bytes, mode: options.mode }]);
  }

  /**
   * Copies files (with their parent folders) into a folder of the container, owned by the sandbox
   * user; into a volume not yet seeded, in one archive with its seed (one extraction, not two).
   */
  async putFiles(dir: string, files: readonly PackFile[]): Promise<void> {
    const owner = { uid: SANDBOX_UID, gid: SANDBOX_GID };
    const root = this.writableRoots.find((r) => this.pending.has(r) && isUnder(r, dir));
    const seed = root === undefined ? null : tarBody(this.pending.get(root)!);
    const under = root === undefined ? "" : path.posix.relative(root, dir);
    if (root === undefined || !seed?.folders.has(under)) {
      await this.seeded();
      await this.docker.putArchive(this.id, dir, packFiles(files, owner));
      return;
    }
    this.pending.delete(root);
    const others = this.seeded();
    this.seeding = Promise.all([
      others,
      this.docker.putArchive(this.id, root, seededPack(seed, under, files, owner)),
    ]).then(() => {});
    await this.seeding;
  }

  /**
   * The first place the agent can write to (the volumes, /tmp, /dev/shm) with under 1% of its blocks
   * or of its inodes free (statfs as the sandbox user), described with its use; or null.
   */
  async fullFolder(): Promise<string | null> {
    const places = writablePlaces(this.writableRoots);
    const r = await this.exec(["stat", "-f", "-c", "%n %a %b %S %d %c", ...places], {
      timeoutSec: 10,
      maxOutputBytes: 4096,
    });
    // The container's answer is the agent's: only a place asked about, followed by five plain numbers.
    const numbers = new Map<string, number[]>();
    for (const line of r.stdout.split("\n")) {
      const m = /^(\S+) (\d{1,15}) (\d{1,15}) (\d{1,9}) (\d{1,15}) (\d{1,15})$/.exec(line);
      if (m && places.includes(m[1]!) && !numbers.has(m[1]!)) numbers.set(m[1]!, m.slice(2).map(Number));
    }
    for (const place of places) {
      const n = numbers.get(place);
      if (!n) continue;
      const [free, total, block, freeInodes, inodes] = n as [number, number, number, number, number];
      const kib = (blocks: number) => Math.round((blocks * block) / 1024);
      if (total > 0 && free * 100 < total) return `${place} (${kib(total - free)} of ${kib(total)} KiB used)`;
      if (inodes > 0 && freeInodes * 100 < inodes)
        return `${place} (${inodes - freeInodes} of ${inodes} inodes used)`;
    }
    return null;
  }

  /**
   * Stops every process by freezing it (docker pause): a killed container's tmpfs volumes are
   * unmounted and their files lost, a paused one's stay readable until the container is removed. A
   * freeze the kernel refused (a process forking at that moment) is asked again until `signal` aborts.
   */
  async stop(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.seeded();
    await this.docker.pauseContainer(this.id, options.signal);
  }

  /** The declared outputs, each judged by its tar entry (call after stop()). */
  collectOutputs(outputs: readonly DeclaredOutput[]): Promise<OutputFile[]> {
    return collectOutputs(this, outputs);
  }

  /** Removes the container with its volumes (anonymous: `rm -v` takes them). */
  async remove(): Promise<void> {
    await this.docker.removeContainer(this.id);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.remove();
  }
}
