// Test support: a second Docker daemon on this machine (its own data-root, exec-root, unix socket
// and bridge), started by the test and stopped after it, with images copied in. Its bridge is its
// own: `--bridge=none` would make dockerd delete docker0, the first daemon's bridge (its builds then
// fail), and the default name would collide with it. No iptables rules; kgate's containers have no
// network, so nothing is routed through the bridge. A daemon started with `keep` keeps its data-root
// between runs under /var/tmp/kgate-test-dockerd/<name>: the images it was given stay there (copying
// the 1.4 GB harness image cost about 28 s of CPU a run), everything else a run left is removed.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DockerClient } from "../../src/sandbox/docker/client.ts";

/** Where kept daemons' data-roots live (remove it to reclaim the disk; the next run copies again). */
export const KEPT_DAEMONS = "/var/tmp/kgate-test-dockerd";

export interface SecondDaemon {
  /** unix:///.../docker.sock, as DOCKER_HOST takes it. */
  host: string;
  /** tcp://127.0.0.1:<port> when started with `tls` (the daemon verifies client certificates). */
  tcp?: string;
  client: DockerClient;
  stop(): Promise<void>;
}

export interface SecondDaemonOptions {
  /** Also listen on TCP at 127.0.0.1:`port` with --tlsverify and these files. */
  tls?: { ca: string; serverCert: string; serverKey: string; port: number };
  /**
   * Keep the data-root between runs, under KEPT_DAEMONS/`name` (a fresh one while another process
   * holds it), with exactly `images` (tags of the first daemon): those missing are copied in; other
   * images, every container and every volume a run left are removed at the start.
   */
  keep?: { name: string; images: string[] };
}

export async function startSecondDaemon(o: SecondDaemonOptions = {}): Promise<SecondDaemon> {
  if (process.getuid?.() !== 0) throw new Error("a second dockerd needs root (CI runs the tests as root)");
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-dockerd-"));
  const socket = path.join(dir, "docker.sock");
  const kept = o.keep ? claimKept(o.keep.name) : undefined;
  const dataRoot = kept?.dataRoot ?? path.join(dir, "data");
  // The network state names the bridge of the last start; this start has another.
  if (kept) rmSync(path.join(dataRoot, "network"), { recursive: true, force: true });
  const bridge = addBridge();
  const daemon: ChildProcess = spawn(
    "dockerd",
    [
      "--data-root",
      dataRoot,
      "--exec-root",
      path.join(dir, "exec"),
      "--pidfile",
      path.join(dir, "dockerd.pid"),
      "--host",
      `unix://${socket}`,
      `--bridge=${bridge}`,
      "--iptables=false",
      "--ip6tables=false",
      "--ip-masq=false",
      ...(o.tls
        ? [
            "--host",
            `tcp://127.0.0.1:${o.tls.port}`,
            "--tlsverify",
            `--tlscacert=${o.tls.ca}`,
            `--tlscert=${o.tls.serverCert}`,
            `--tlskey=${o.tls.serverKey}`,
          ]
        : []),
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  daemon.stderr?.on("data", (c: Buffer) => {
    log = (log + c.toString()).slice(-4000);
  });
  const client = new DockerClient({ socketPath: socket });
  /** Stopping twice (a test that stops it mid-run, then afterAll) waits for the first stop only. */
  let stopping: Promise<void> | undefined;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await client.ping();
      break;
    } catch {
      if (Date.now() > deadline || daemon.exitCode !== null)
        throw new Error(`the second dockerd did not come up:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const host = `unix://${socket}`;
  if (o.keep) {
    // A kept daemon holds what an earlier run left there: only the images asked for stay.
    for (const id of lines(docker(host, ["ps", "-aq"]))) docker(host, ["rm", "-f", id]);
    docker(host, ["volume", "prune", "-f"], false);
    const wanted = new Set(o.keep.images);
    for (const tag of lines(docker(host, ["images", "--format", "{{.Repository}}:{{.Tag}}"]))) {
      if (!wanted.has(tag)) docker(host, ["rmi", "-f", tag], false);
    }
    docker(host, ["image", "prune", "-f"], false);
  }
  for (const tag of o.keep?.images ?? []) copyImage(tag, host);
  return {
    host,
    ...(o.tls ? { tcp: `tcp://127.0.0.1:${o.tls.port}` } : {}),
    client,
    stop() {
      stopping ??= stopDaemon();
      return stopping;
    },
  };
  async function stopDaemon(): Promise<void> {
    const exited = new Promise((r) => daemon.once("exit", r));
    daemon.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (daemon.exitCode === null) daemon.kill("SIGKILL");
    spawnSync("ip", ["link", "del", bridge]);
    // The daemon's mounts go a moment after it exits.
    for (let i = 0; i < 20; i++) {
      try {
        rmSync(dir, { recursive: true, force: true });
        break;
      } catch {
        spawnSync("umount", ["-R", path.join(dir, "data")]);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    kept?.release();
  }
}

function docker(host: string, args: string[], check = true): string {
  const run = spawnSync("docker", ["-H", host, ...args], { encoding: "utf8" });
  if (check && run.status !== 0) throw new Error(`docker -H ${host} ${args.join(" ")}: ${run.stderr}`);
  return run.stdout ?? "";
}

const lines = (text: string) => text.split("\n").filter((l) => l && !l.includes("<none>"));

/**
 * The kept data-root `name`, held by this process (its pid in a lock file, taken over when that
 * process is gone), or undefined when a live process holds it.
 */
function claimKept(name: string): { dataRoot: string; release(): void } | undefined {
  const dir = path.join(KEPT_DAEMONS, name);
  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, "lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      return { dataRoot: path.join(dir, "data"), release: () => rmSync(lock, { force: true }) };
    } catch {
      const holder = Number(readFileSync(lock, "utf8"));
      if (holder > 0 && alive(holder)) return undefined;
      rmSync(lock, { force: true });
    }
  }
  return undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A bridge of its own for the daemon, on a free name: other daemons of concurrent test files, or
 * bridges a killed run left behind, hold some of kgate-br200..249 (`ip link add` of one that exists
 * fails with "File exists").
 */
function addBridge(): string {
  const first = Math.floor(Math.random() * 50);
  for (let i = 0; i < 50; i++) {
    const octet = 200 + ((first + i) % 50);
    const bridge = `kgate-br${octet}`;
    if (spawnSync("ip", ["link", "add", bridge, "type", "bridge"]).status !== 0) continue;
    const addr = spawnSync("ip", ["addr", "add", `172.31.${octet}.1/24`, "dev", bridge], {
      encoding: "utf8",
    });
    if (addr.status !== 0) throw new Error(`ip addr add 172.31.${octet}.1/24 dev ${bridge}: ${addr.stderr}`);
    return bridge;
  }
  throw new Error("no free bridge name kgate-br200..249 for a second dockerd");
}

/**
 * Copies an image of the first daemon into another unless it has it: docker save | docker load,
 * streamed (the harness image is 1.4 GB).
 */
export function copyImage(tag: string, host: string): void {
  if (spawnSync("docker", ["-H", host, "image", "inspect", tag], { stdio: "ignore" }).status === 0) return;
  const script = 'set -o pipefail; docker save "$1" | docker -H "$2" load';
  const copied = spawnSync("bash", ["-c", script, "copy", tag, host], { encoding: "utf8" });
  if (copied.status !== 0) throw new Error(`copying ${tag} into ${host}: ${copied.stderr}`);
}
