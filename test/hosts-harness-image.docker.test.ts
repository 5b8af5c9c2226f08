// The harness image is the provider's, built where the trials run: with `sandbox.hosts` listing a
// second dockerd first and the local daemon second, an installed harness (the stand-in CLI, in a
// project harness image of its own: the sandbox image plus a node binary and the relay forwarder)
// gets its image built on the second daemon, the pool's first host, and loaded into the local one
// when a trial lands there; one trial runs on each host and both find the image. Real Docker, two
// daemons, the relay over the exec stream, a scripted loopback model.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureHarnessImage, InstalledAgent, planHarnessImage } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { HostPoolProvider } from "../src/sandbox/docker/host-pool.ts";
import { agentConfig, scaffoldedTask } from "./support/agent-context.ts";
import { engineTrials } from "./support/engine.ts";
import { type ModelServer, startModelServer, turnIndex } from "./support/model-server.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { type SecondDaemon, startSecondDaemon } from "./support/second-daemon.ts";
import { standin } from "./support/standin.ts";

const FORWARDER = path.resolve(import.meta.dirname, "..", "sandbox", "harness", "relay-forwarder.mjs");
const KEY = "sk-ant-upstream-harness-image";
const local = new DockerClient();

let second: SecondDaemon;
let server: ModelServer;

beforeAll(async () => {
  second = await startSecondDaemon({ keep: { name: "hosts-harness-image", images: [sandboxImage()] } });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await second?.stop();
});

/**
 * A harness build context of the project's own (sandbox/harness/): no npm install (the second
 * daemon's builds have no network), this machine's node binary for the stand-in and the forwarder,
 * and a nonce, so that its tag is new to both daemons.
 */
function writeHarnessContext(sandboxDir: string): void {
  const dir = path.join(sandboxDir, "harness");
  mkdirSync(dir, { recursive: true });
  copyFileSync(process.execPath, path.join(dir, "node"));
  copyFileSync(FORWARDER, path.join(dir, "relay-forwarder.mjs"));
  writeFileSync(
    path.join(dir, "Dockerfile"),
    [
      "ARG BASE",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's build arg, not a template
      "FROM ${BASE}",
      "USER root",
      "COPY node /usr/local/bin/node",
      "COPY relay-forwarder.mjs /opt/kgate/relay-forwarder.mjs",
      "RUN chmod 0755 /usr/local/bin/node",
      `LABEL kgate.test.nonce="${process.pid}-${Date.now()}"`,
      "USER agent",
      "WORKDIR /home/agent/work",
      "",
    ].join("\n"),
  );
}

/**
 * The demo task's answer, written with bash: its input (widget 3, gadget 5) at the artefact's 12%
 * overhead, 3 * 1.12 = 3.36 and 5 * 1.12 = 5.60, which the verifier passes.
 */
const WRITE_RESULT = `mkdir -p output && awk -F, 'NR==1{print "item,value"; next}{printf "%s,%.2f\\n", $1, $2*1.12}' input.csv > output/result.csv`;

describe("a pool whose first host is a second dockerd, with an installed harness", () => {
  it("builds the harness image on that host, loads it into the other, and a trial on each finds it", async () => {
    const task = scaffoldedTask();
    const paths = projectPaths(path.dirname(path.dirname(task.dir)));
    writeHarnessContext(paths.sandbox);
    const plan = planHarnessImage(paths, sandboxImage());
    expect(await local.imageId(plan.tag)).toBeNull();
    expect(await second.client.imageId(plan.tag)).toBeNull();

    server = await startModelServer(
      (request) =>
        turnIndex(request) === 0
          ? { toolCalls: [{ name: "bash", input: { command: WRITE_RESULT } }] }
          : { text: "done" },
      { requireKey: KEY },
    );
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const pool = new HostPoolProvider(
      [
        { name: "there", endpoint: { host: second.host }, capacity: 1 },
        { name: "here", endpoint: {}, capacity: 1 },
      ],
      { log },
    );
    const config = agentConfig("standin", {
      harness: "claude-code",
      provider: "anthropic",
      model: "scripted",
      baseUrl: server.anthropicUrl,
      apiKeyEnv: "KGATE_TEST_UPSTREAM_KEY",
      retry: { maxRetries: 0, baseDelayMs: 5, maxDelayMs: 20 },
    });
    const agent = new InstalledAgent(config, {
      adapter: standin,
      env: { KGATE_TEST_UPSTREAM_KEY: KEY },
      ensureImage: (provider) => ensureHarnessImage(paths, provider, log),
    });
    try {
      const records = await engineTrials({
        paths,
        task,
        condition: "-A",
        agent,
        runId: "hosts-harness-image",
        runDir: path.join(paths.runs, "hosts-harness-image"),
        n: 2,
        // two at once, one slot per host: the first trial goes to "there" (listed first), the second "here"
        concurrency: 2,
        retries: 0,
        provider: pool,
      });
      expect(records.map((r) => r.provenance?.host).sort()).toEqual(["here", "there"]);
      for (const record of records) {
        expect(record.error, JSON.stringify(record.error)).toBeNull();
        expect(record.stopReason).toBe("finish");
        expect(record.verdict.status).toBe("pass");
      }
      // built on the pool's first host (the base is the sandbox image there), then loaded by id
      const built = await second.client.imageId(plan.tag);
      expect(built).not.toBeNull();
      expect(await local.imageId(plan.tag)).toBe(built);
      expect(lines).toContain(`building the harness image ${plan.tag} on ${sandboxImage()}`);
      expect(lines.filter((l) => l.startsWith(`host here: loading ${plan.tag} `))).toEqual([
        `host here: loading ${plan.tag} (${built!.slice(0, 19)}) from there`,
      ]);
      // each trial's model calls went through the relay: the bash turn and the answer, twice
      expect(server.requests).toHaveLength(4);
    } finally {
      await agent.dispose();
      const id = await local.imageId(plan.tag);
      if (id) await local.removeImage(id);
    }
  }, 300_000);
});
