// Benchmark support: one small model call from inside a sandbox, through the relay, over the two
// channels kgate has had: the forwarder's frames over a streaming exec (today's), and the baseline
// set up here as it was before: the relay's socket folder bind-mounted, a plain socket pipe inside.
import { chmodSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import Docker from "dockerode";
import { startForwarder } from "../../src/agents/installed/forwarder.ts";
import { ensureHarnessImage } from "../../src/agents/installed/image.ts";
import { RELAY_PORT, RELAY_SOCKET_NAME } from "../../src/agents/relay/server.ts";
import { projectPaths } from "../../src/project.ts";
import { DockerClient } from "../../src/sandbox/docker/client.ts";
import { DockerSandbox } from "../../src/sandbox/docker/container.ts";
import { DockerProvider } from "../../src/sandbox/docker/provider.ts";
import { containerLabels } from "../../src/sandbox/index.ts";
import { startBenchRelay } from "./bench-relay.ts";

export interface ChannelCase {
  calls: number;
  /** Mean ms per call, measured inside the container (the harness's view), per round. */
  execStreamMs: number[];
  bindMountMs: number[];
  /** exec stream / bind mount, from the sums over the rounds. */
  ratio: number;
}

const BASELINE_PORT = 4101;
const MOUNT = "/run/kgate-relay";

/** Inside the container: warm-up, then `n` sequential small Messages calls; prints ms per call. */
const CLIENT = `
const [url, key, n] = process.argv.slice(1);
const one = async () => {
  const r = await fetch(url + "/v1/messages", { method: "POST", headers: { "content-type": "application/json",
    "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "bench", max_tokens: 64, messages: [{ role: "user", content: "hello" }] }) });
  await r.text();
  if (!r.ok) throw new Error("status " + r.status);
};
for (let i = 0; i < 10; i++) await one();
const t = performance.now();
for (let i = 0; i < Number(n); i++) await one();
console.log(((performance.now() - t) / Number(n)).toFixed(4));
`;

/** The pre-exec-stream forwarder's connection handling (noDelay both ways), 127.0.0.1:port -> socket. */
const SOCKET_PIPE = `const net = require("net");
net.createServer({ noDelay: true }, (c) => { c.setNoDelay(true); const u = net.connect(process.argv[2]);
  c.pipe(u).pipe(c); const close = () => { c.destroy(); u.destroy(); }; c.on("error", close); u.on("error", close); })
  .listen(Number(process.argv[1]), "127.0.0.1", () => console.log("listening"));`;

/** Runs the client in a container (by id) through the same exec path kgate uses for commands. */
async function timeInside(id: string, port: number, token: string, calls: number): Promise<number> {
  const out = { stdout: "", stderr: "" };
  const sink = (key: keyof typeof out) =>
    new Writable({
      write(chunk: Buffer, _enc, done) {
        out[key] += chunk.toString();
        done();
      },
    });
  const code = await new DockerClient().exec(
    id,
    {
      argv: ["node", "--input-type=module", "-e", CLIENT, `http://127.0.0.1:${port}`, token, String(calls)],
      user: "1000:1000",
      cwd: "/tmp",
      env: {},
    },
    { stdout: sink("stdout"), stderr: sink("stderr") },
    AbortSignal.timeout(300_000),
  );
  const ms = Number(out.stdout.trim());
  if (code !== 0 || !Number.isFinite(ms))
    throw new Error(`client failed (${code}): ${out.stderr.slice(-500)}`);
  return ms;
}

export async function benchRelayChannels(calls = 200, rounds = 3): Promise<ChannelCase> {
  const image = await ensureHarnessImage(
    projectPaths(path.resolve(import.meta.dirname, "../..")),
    new DockerProvider(),
  );
  const { relay, session, close } = await startBenchRelay(64);
  const limits = { cpus: 1, memoryMb: 512, pids: 128 };
  const streamBox = await DockerSandbox.create({
    image,
    limits,
    labels: containerLabels({ runId: "bench-relay", trialId: "exec-stream", taskId: "none" }),
  });
  // the baseline as before: the socket folder readable by the sandbox user, mounted read-only
  chmodSync(relay.socketDir, 0o755);
  chmodSync(relay.socketPath, 0o666);
  const docker = new Docker();
  const bound = await docker.createContainer({
    Image: image,
    Cmd: ["sleep", "3600"],
    User: "1000:1000",
    Labels: containerLabels({ runId: "bench-relay", trialId: "bind-mount", taskId: "none" }),
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: "none",
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Memory: limits.memoryMb * 1024 * 1024,
      NanoCpus: limits.cpus * 1e9,
      PidsLimit: limits.pids,
      Binds: [`${relay.socketDir}:${MOUNT}:ro`],
    },
  });
  try {
    await bound.start();
    const forwarder = await startForwarder(streamBox, relay.socketPath);
    const pipe = await bound.exec({
      Cmd: ["node", "-e", SOCKET_PIPE, String(BASELINE_PORT), `${MOUNT}/${RELAY_SOCKET_NAME}`],
      AttachStdout: true,
      AttachStderr: true,
    });
    const pipeStream = await pipe.start({ hijack: true, stdin: false });
    await new Promise<void>((resolve) => pipeStream.once("data", () => resolve()));
    const execStreamMs: number[] = [];
    const bindMountMs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      execStreamMs.push(await timeInside(streamBox.id, RELAY_PORT, session.token, calls));
      bindMountMs.push(await timeInside(bound.id, BASELINE_PORT, session.token, calls));
    }
    forwarder.stop();
    pipeStream.destroy();
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return { calls, execStreamMs, bindMountMs, ratio: sum(execStreamMs) / sum(bindMountMs) };
  } finally {
    await bound.remove({ force: true, v: true }).catch(() => {});
    await streamBox.remove();
    await close();
  }
}

export function formatRelayChannels(c: ChannelCase): string {
  const ms = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(" / ");
  return [
    `relay channel: one small model call from inside a sandbox (${c.calls} calls per round, ms/call per round)`,
    `  exec stream (frames over docker exec)   ${ms(c.execStreamMs)}`,
    `  bind-mounted socket (baseline, before)  ${ms(c.bindMountMs)}`,
    `  ratio exec stream / bind mount          ${c.ratio.toFixed(2)}  (target <= 1.5)`,
    "",
  ].join("\n");
}
