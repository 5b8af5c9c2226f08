// Test support: a second Docker daemon on this machine (its own data-root, exec-root, unix socket
// and bridge), started by the test and stopped after it, with an image copied in. Its bridge is its
// own: `--bridge=none` would make dockerd delete docker0, the first daemon's bridge (its builds then
// fail), and the default name would collide with it. No iptables rules; kgate's containers have no
// network, so nothing is routed through the bridge.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DockerClient } from "../../src/sandbox/docker.ts";

export interface SecondDaemon {
  /** unix:///.../docker.sock, as DOCKER_HOST takes it. */
  host: string;
  /** tcp://127.0.0.1:<port> when started with `tls` (the daemon verifies client certificates). */
  tcp?: string;
  client: DockerClient;
  stop(): Promise<void>;
}

/** `tls`: also listen on TCP at 127.0.0.1:`port` with --tlsverify and these files. */
export async function startSecondDaemon(
  o: { tls?: { ca: string; serverCert: string; serverKey: string; port: number } } = {},
): Promise<SecondDaemon> {
  if (process.getuid?.() !== 0) throw new Error("a second dockerd needs root (CI runs the tests as root)");
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-dockerd-"));
  const socket = path.join(dir, "docker.sock");
  const bridge = addBridge();
  const daemon: ChildProcess = spawn(
    "dockerd",
    [
      "--data-root",
      path.join(dir, "data"),
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
  return {
    host: `unix://${socket}`,
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

/** Copies an image of the first daemon into another (docker save | docker load). */
export function copyImage(tag: string, host: string): void {
  const saved = spawnSync("docker", ["save", tag], { maxBuffer: 2 * 1024 ** 3 });
  if (saved.status !== 0) throw new Error(`docker save ${tag}: ${saved.stderr}`);
  const loaded = spawnSync("docker", ["-H", host, "load"], {
    input: saved.stdout,
    maxBuffer: 64 * 1024 ** 2,
  });
  if (loaded.status !== 0) throw new Error(`docker load into ${host}: ${loaded.stderr}`);
}
