// The relay over the exec stream, in Docker: the stand-in CLI inside a sandbox on a second dockerd
// reached over TCP with TLS reaches the loopback model with nothing of the host mounted, and so does
// the real Claude Code through `kgate run` with that host as the only sandbox host; and on the
// local daemon, an agent that writes hostile frames into the forwarder's stdout (garbage, a 4 GiB
// length) or opens thousands of streams ends only its own trial, recorded as the agent's.
import { readFileSync } from "node:fs";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AdaptiveLimits, ensureHarnessImage, InstalledAgent, readTrajectory } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { outcomeOf } from "../src/record/index.ts";
import { DockerProvider, dockerOptions } from "../src/sandbox/docker/provider.ts";
import { containerLabels } from "../src/sandbox/index.ts";
import { agentConfig, runContext, scaffoldedTask } from "./support/agent-context.ts";
import { engineTrials, TestDockerProvider } from "./support/engine.ts";
import {
  type ModelServer,
  type Script,
  type SeenRequest,
  startModelServer,
  turnIndex,
} from "./support/model-server.ts";
import { writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync } from "./support/scripted-model.ts";
import { type SecondDaemon, startSecondDaemon } from "./support/second-daemon.ts";
import { standin } from "./support/standin.ts";
import { makeTlsFiles, type TlsFiles } from "./support/tls-certs.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const UPSTREAM_KEY = "sk-ant-upstream-never-in-the-container";

let image: string;
let second: SecondDaemon;
let tls: TlsFiles;

beforeAll(async () => {
  image = await ensureHarnessImage(repo, new TestDockerProvider());
  tls = makeTlsFiles();
  // Kept between runs with both images: the harness image is copied in once per machine and digest.
  second = await startSecondDaemon({
    tls: { ...tls, port: 24000 + Math.floor(Math.random() * 900) },
    keep: { name: "relay-exec-stream", images: [image, sandboxImage()] },
  });
}, 600_000);

afterAll(async () => {
  await second?.stop();
});

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function standinAgent(script: Script): Promise<InstalledAgent> {
  server = await startModelServer(script, { requireKey: UPSTREAM_KEY });
  const config = agentConfig("standin", {
    harness: "claude-code",
    provider: "anthropic",
    model: "scripted",
    baseUrl: server.anthropicUrl,
    apiKeyEnv: "KGATE_TEST_UPSTREAM_KEY",
    retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
    pricing: { inputPerMTok: 5, outputPerMTok: 25 },
  });
  return new InstalledAgent(config, {
    adapter: standin,
    env: { KGATE_TEST_UPSTREAM_KEY: UPSTREAM_KEY },
    // found where the trial runs: on the local daemon, or on the second one (copied there above)
    ensureImage: (provider) => ensureHarnessImage(repo, provider),
  });
}

const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });

describe("the relay over the exec stream on a remote host (second dockerd, TCP + TLS)", () => {
  it("the stand-in reaches the loopback model, nothing of the host is mounted, the key stays out", async () => {
    const agent = await standinAgent([bash("echo hello > note.txt"), { text: "done" }]);
    const endpoint = { host: second.tcp, tls: { ca: tls.ca, cert: tls.cert, key: tls.key } };
    const provider = new DockerProvider(endpoint, { name: "there" });
    const task = scaffoldedTask();
    const requirements = await agent.prepare({ provider, limits: new AdaptiveLimits() });
    expect(requirements.image).toBe(image);
    const sandbox = await provider.create({
      image: "unused-when-requirements-name-one",
      limits: task.spec.limits,
      network: false,
      labels: containerLabels({ runId: "relay-exec-stream", trialId: "remote", taskId: task.id }),
      requirements,
    });
    try {
      const inspect = await new Docker(dockerOptions(endpoint)).getContainer(sandbox.id).inspect();
      expect(inspect.HostConfig.Binds ?? []).toEqual([]);
      // only the anonymous volume of /home/agent: no bind, no named volume, no host path
      expect(inspect.Mounts.map((m) => [m.Type, m.Destination])).toEqual([["volume", "/home/agent"]]);
      expect(inspect.HostConfig.NetworkMode).toBe("none");
      const ctx = runContext(sandbox, { task, condition: "-A" });
      const result = await agent.run(ctx);
      expect(result.error).toBeUndefined();
      expect(result.stopReason).toBe("finish");
      // two model calls (the bash turn, then the answer), both through the relay with the real key
      expect(server!.requests).toHaveLength(2);
      expect(server!.requests.every((r) => r.headers["x-api-key"] === UPSTREAM_KEY)).toBe(true);
      expect(result.usage.modelCalls).toBe(2);
      expect((await sandbox.readFile("note.txt")).toString()).toBe("hello\n");
      const channel = ctx.trajectory.events.find((e) => e.kind === "relay-channel");
      expect(channel).toMatchObject({ ended: null, refused: 0 });
      expect((channel as unknown as { streams: number }).streams).toBeGreaterThanOrEqual(1);
      const env = await sandbox.exec(["sh", "-c", "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"]);
      expect(env.stdout).not.toContain(UPSTREAM_KEY);
    } finally {
      await sandbox.remove();
      await agent.dispose();
    }
  });
});

/** The real Claude Code on the demo task under -A: write the result with Bash, then stop. */
function claudePolicy(request: SeenRequest) {
  if (!Array.isArray(request.body.tools) || request.body.tools.length === 0) return { text: "ok" };
  if (turnIndex(request) > 0) return { text: "Wrote output/result.csv." };
  const command = `mkdir -p output && awk -F, 'NR==1{print "item,value"; next}{printf "%s,%.2f\\n", $1, $2}' input.csv > output/result.csv`;
  return { toolCalls: [{ name: "Bash", input: { command, description: "write the result" } }] };
}

describe("`kgate run` with the real Claude Code on the remote host as the only sandbox host", () => {
  it("the trial runs there through the exec-stream relay and the record names the host", async () => {
    server = await startModelServer(claudePolicy, { requireKey: UPSTREAM_KEY });
    const task = scaffoldedTask();
    const root = path.dirname(path.dirname(task.dir));
    writeJson(path.join(root, "kgate.config.json"), {
      agents: {
        frontier: {
          harness: "claude-code",
          provider: "anthropic",
          model: "scripted",
          baseUrl: server.anthropicUrl,
          apiKeyEnv: "KGATE_TEST_UPSTREAM_KEY",
          retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20 },
          timeoutSec: 300,
        },
      },
      sandbox: {
        hosts: [
          { name: "there", host: second.tcp, capacity: 1, tls: { ca: tls.ca, cert: tls.cert, key: tls.key } },
        ],
      },
    });
    const ran = await kgateAsync(
      ["--root", root, "run", "demo", "--agent", "frontier", "--condition", "-A", "--json"],
      { KGATE_TEST_UPSTREAM_KEY: UPSTREAM_KEY },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const { runId, records } = JSON.parse(ran.stdout);
    expect(records[0]).toMatchObject({ stopReason: "finish", error: null, provenance: { host: "there" } });
    const output = path.join(
      root,
      "runs",
      runId,
      "trials",
      records[0].trialId,
      "outputs",
      "output",
      "result.csv",
    );
    // the demo's input (widget 3, gadget 5) with no overhead: -A, the default convention
    expect(readFileSync(output, "utf8")).toBe("item,value\nwidget,3.00\ngadget,5.00\n");
    // at least the Bash turn and the final one, every call with the real key added by the relay
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(server.requests.every((r) => r.headers["x-api-key"] === UPSTREAM_KEY)).toBe(true);
  }, 600_000);
});

/** A bash command that writes `bytes` (printf escapes) into the forwarder's stdout, as an agent can. */
function intoForwarder(bytes: string): string {
  return [
    "for p in /proc/[0-9]*; do",
    `  case "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" in`,
    `    "node /opt/kgate/relay-forwarder.mjs "*) printf '${bytes}' > $p/fd/1 && echo injected;;`,
    "  esac",
    "done",
  ].join("\n");
}

async function oneTrial(agent: InstalledAgent, runId: string) {
  const trial = await runOne(agent, runId);
  const trajectory = readTrajectory(path.join(trial.runDir, trial.record.trajectory ?? "none")).events;
  return { ...trial, trajectory };
}

async function runOne(agent: InstalledAgent, runId: string) {
  const task = scaffoldedTask();
  const paths = projectPaths(path.dirname(path.dirname(task.dir)));
  const [record] = await engineTrials({
    paths,
    task,
    condition: "-A",
    agent,
    runId,
    runDir: path.join(paths.runs, runId),
    n: 1,
    retries: 0,
  });
  return { record: record!, runDir: path.join(paths.runs, runId) };
}

describe("a hostile agent against the forwarder's channel (local daemon, the real engine)", () => {
  it("garbage and a 4 GiB frame length end the trial as the agent's; the next trial still runs", async () => {
    const agent = await standinAgent((request, index) => {
      void request;
      if (index === 0) return bash(intoForwarder("GARBAGE!\\x02\\x00\\x00\\x00\\x01\\xff\\xff\\xff\\xff"));
      return { text: "done" };
    });
    try {
      const { record, trajectory } = await oneTrial(agent, "relay-hostile-frames");
      expect(trajectory.find((e) => e.kind === "relay-channel")).toMatchObject({ ended: "violation" });
      expect(record.error).toMatchObject({ kind: "agent-exit", owner: "agent" });
      expect(record.error?.message).toMatch(/relay channel broke its protocol: a frame of \d+ bytes/);
      expect(outcomeOf(record)).toBe("fail");
      // one model call: the bash turn; the call after the injection never reached the model
      expect(server!.requests).toHaveLength(1);
      // the relay (one per agent, shared by its trials) is untouched: the next trial reaches the model
      const next = await oneTrial(agent, "relay-after-hostile");
      expect(next.record.error).toBeNull();
      expect(next.record.stopReason).toBe("finish");
      expect(server!.requests).toHaveLength(2);
    } finally {
      await agent.dispose();
    }
  });

  it("an agent that kills the forwarder: the channel's end is noted and the trial is the agent's", async () => {
    const kill = [
      "for p in /proc/[0-9]*; do",
      `  case "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" in`,
      `    "node /opt/kgate/relay-forwarder.mjs "*) kill -9 \${p#/proc/} && echo killed;;`,
      "  esac",
      "done",
    ].join("\n");
    const agent = await standinAgent((_request, index) => (index === 0 ? bash(kill) : { text: "done" }));
    try {
      const { record, trajectory } = await oneTrial(agent, "relay-forwarder-killed");
      expect(trajectory.find((e) => e.kind === "relay-channel")).toMatchObject({ ended: "ended" });
      // the harness's next call finds 127.0.0.1:4100 closed: its own failure after a model call
      expect(record.error).toMatchObject({ kind: "agent-exit", owner: "agent" });
      expect(server!.requests).toHaveLength(1);
    } finally {
      await agent.dispose();
    }
  });

  it("3,000 connections opened at once: the channel refuses past its cap and the trial finishes", async () => {
    const flood = [
      "node -e '",
      'const net = require("net"); let done = 0; const n = 3000;',
      'for (let i = 0; i < n; i++) { const c = net.connect(4100, "127.0.0.1");',
      '  const end = () => { c.destroy(); if (++done === n) console.log("flooded"); };',
      '  c.on("error", end); c.on("close", end); setTimeout(end, 2000); }\'',
      // then until the channel has room again: a stream it accepts reaches the relay, which answers a
      // request without a token 401 and hangs up; one it refuses is closed with nothing said. The
      // host forgets a stream before it tells the forwarder to close it, so once this probe's
      // connection closed after its 401 the channel held fewer than its cap, and no flood stream is
      // opened after the probe's (the forwarder accepts in order): the harness's next call gets in.
      "node -e '",
      'const net = require("net");',
      'const probe = () => { const c = net.connect(4100, "127.0.0.1"); let got = "";',
      '  c.on("data", (d) => (got += d)); c.on("error", () => {});',
      '  c.on("close", () => (got.startsWith("HTTP/1.1 401") ? console.log("room") : setTimeout(probe, 10)));',
      '  c.write("GET /v1/models HTTP/1.1\\r\\nhost: relay\\r\\n\\r\\n"); };',
      "probe()'",
    ].join("\n");
    const agent = await standinAgent((_request, index) => (index === 0 ? bash(flood) : { text: "done" }));
    try {
      const { record, trajectory } = await oneTrial(agent, "relay-hostile-opens");
      expect(record.error, JSON.stringify(record.error)).toBeNull();
      expect(record.stopReason).toBe("finish");
      // both model calls went through: the one before the flood and the one after it
      expect(server!.requests).toHaveLength(2);
      expect(record.usage.modelCalls).toBe(2);
      // no exact figure here: the forwarder's listen backlog (511) drops some of the 3,000 before it
      // sees them (relay-channel.test.ts counts exactly); past 32 open at once, the rest were refused
      const channel = trajectory.find((e) => e.kind === "relay-channel") as
        | { ended: unknown; streams: number; refused: number }
        | undefined;
      expect(channel?.ended).toBeNull();
      expect(channel?.streams).toBeGreaterThan(32);
      expect(channel?.refused).toBeGreaterThan(0);
    } finally {
      await agent.dispose();
    }
  });
});
