// Installed harnesses in Docker. The harness image: built once from the sandbox image (cached by
// digest), Claude Code and Codex CLI at their pinned versions start offline. Then the relay path end
// to end: the stand-in CLI runs inside a sandbox with no network and reaches the loopback model only
// through forwarder -> unix socket -> relay (which injects the key and counts tokens); the real trial
// runner writes records and trajectories. One file, so the image is built once per suite.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentConfigInput,
  ensureHarnessImage,
  INSTALLED_HARNESSES,
  InstalledAgent,
  planHarnessImage,
  readTrajectory,
} from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { containerLabels, DockerClient, DockerSandbox, ensureSandboxImage } from "../src/sandbox/index.ts";
import type { Condition, LoadedTask } from "../src/task/index.ts";
import { runTrials } from "../src/trial/index.ts";
import { agentConfig, runContext, scaffoldedTask } from "./support/agent-context.ts";
import {
  lastToolResults,
  type ModelServer,
  type Script,
  type SeenRequest,
  startModelServer,
  turnIndex,
} from "./support/model-server.ts";
import { standin } from "./support/standin.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));

let image: string;
let probe: DockerSandbox;

beforeAll(async () => {
  image = await ensureHarnessImage(repo, {
    onProgress: (line) => process.stderr.write(`[harness image] ${line}\n`),
  });
  probe = await DockerSandbox.create({
    image,
    limits: { cpus: 1, memoryMb: 512, pids: 128 },
    labels: containerLabels({ runId: "test-harness-image", trialId: "version", taskId: "none" }),
  });
}, 900_000);

afterAll(async () => {
  await probe?.remove();
});

describe("harness image", () => {
  it("is tagged by the digest of sandbox/harness, the pinned versions and the sandbox image", async () => {
    const plan = planHarnessImage(repo, await ensureSandboxImage(repo));
    expect(image).toBe(plan.tag);
    expect(plan.packages).toBe("@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0");
    expect(planHarnessImage(repo, "kgate-sandbox:other").tag).not.toBe(plan.tag);
    expect(await new DockerClient().imageId(image)).not.toBeNull();
    expect(await ensureHarnessImage(repo)).toBe(image);
  });

  it("runs `claude --version` and `codex --version` offline, as the non-root sandbox user", async () => {
    const claude = await probe.exec(["claude", "--version"], { timeoutSec: 60 });
    expect(claude.stdout).toContain(`${INSTALLED_HARNESSES["claude-code"].version} (Claude Code)`);
    const codex = await probe.exec(["codex", "--version"], { timeoutSec: 60 });
    expect(codex.stdout).toContain(`codex-cli ${INSTALLED_HARNESSES.codex.version}`);
    const who = await probe.exec(["sh", "-c", "id -u; ls /opt/kgate"]);
    expect(who.stdout).toBe("1000\nrelay-forwarder.mjs\n");
  });

  it("has no network: the registry the image was built from is unreachable at run time", async () => {
    const reach = await probe.exec(
      [
        "node",
        "-e",
        "fetch('https://registry.npmjs.org/').then(() => console.log('reached'), () => console.log('offline'))",
      ],
      { timeoutSec: 30 },
    );
    expect(reach.stdout.trim()).toBe("offline");
  });
});

const UPSTREAM_KEY = "sk-ant-upstream-never-in-the-container";
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function standinAgent(script: Script, overrides: Partial<AgentConfigInput> = {}) {
  server = await startModelServer(script, { requireKey: UPSTREAM_KEY });
  const config = agentConfig("standin", {
    harness: "claude-code",
    provider: "anthropic",
    model: "claude-standin",
    baseUrl: server.anthropicUrl,
    apiKeyEnv: "KGATE_TEST_UPSTREAM_KEY",
    retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
    pricing: { inputPerMTok: 5, outputPerMTok: 25 },
    ...overrides,
  });
  return new InstalledAgent(config, {
    adapter: standin,
    env: { KGATE_TEST_UPSTREAM_KEY: UPSTREAM_KEY },
    ensureImage: () => ensureHarnessImage(repo),
  });
}

/**
 * A scripted model for the demo task: open the skill the harness lists (if any), apply the 12%
 * rate when the specification was read and no overhead otherwise, write the output, stop.
 */
function demoPolicy(request: SeenRequest) {
  const turn = turnIndex(request);
  if (turn === 0) {
    const skill = /\((\.claude\/skills\/[^)]+)\)/.exec(String(request.body.system))?.[1];
    return {
      toolCalls: [{ name: "bash", input: { command: `cat ${skill ?? "docs/internal/specification.md"}` } }],
    };
  }
  if (turn === 1) {
    const rate = /overhead rate of 12%/.test(lastToolResults(request).join("")) ? 1.12 : 1;
    const command = `mkdir -p output && awk -F, 'NR==1{print "item,value"; next}{printf "%s,%.2f\\n", $1, $2*${rate}}' input.csv > output/result.csv`;
    return { toolCalls: [{ name: "bash", input: { command } }] };
  }
  return { text: "Wrote output/result.csv." };
}

async function trial(task: LoadedTask, condition: Condition) {
  const agent = await standinAgent(demoPolicy);
  const paths = projectPaths(path.dirname(path.dirname(task.dir)));
  const runDir = path.join(paths.runs, "installed-test");
  const [record] = await runTrials({
    paths,
    task,
    condition,
    agent,
    runId: "installed-test",
    runDir,
    n: 1,
    retries: 0,
  });
  const outputs = path.join(runDir, "trials", record!.trialId, "outputs", "output", "result.csv");
  return { record: record!, runDir, output: () => readFileSync(outputs, "utf8") };
}

describe("installed harness through the relay (Docker)", () => {
  it("under +A the harness finds the skill, reads it and applies the artefact's convention", async () => {
    const task = scaffoldedTask();
    const { record, runDir, output } = await trial(task, "+A");
    expect(record.error).toBeNull();
    expect(record.stopReason).toBe("finish");
    expect(output()).toBe("item,value\nwidget,3.36\ngadget,5.60\n");
    expect(record.usage.modelCalls).toBe(3);
    expect(record.usage.costUsd).toBeGreaterThan(0);
    expect(record.artefactListed).toBe(true);
    expect(record.artefactOpened).toBe(true);
    expect(record.agent).toMatchObject({ name: "standin", harness: "claude-code", model: "claude-standin" });
    const events = readTrajectory(path.join(runDir, record.trajectory!));
    expect(events.filter((e) => e.type === "model")).toHaveLength(3);
    expect(events.find((e) => e.type === "tool-call")?.input).toEqual({
      command: "cat .claude/skills/specification/SKILL.md",
    });
    expect(events.find((e) => e.kind === "artefact-delivered")).toMatchObject({ as: "skill" });
    expect(server!.requests.every((r) => r.headers["x-api-key"] === UPSTREAM_KEY)).toBe(true);
  });

  it("under -A nothing of the artefact exists: the default convention, no listing, no leak", async () => {
    const task = scaffoldedTask();
    const { record, output } = await trial(task, "-A");
    expect(record.error).toBeNull();
    expect(output()).toBe("item,value\nwidget,3.00\ngadget,5.00\n");
    expect(record.artefactListed).toBe(false);
    expect(record.artefactOpened).toBeNull();
    expect(record.canaryLeak).toBe(false);
    expect(String(server!.requests[0]!.body.system)).not.toContain("Skills");
  });

  it("a persistent upstream 500 ends as an infra error, and the key never enters the container", async () => {
    const agent = await standinAgent([{ status: 500, message: "upstream down" }]);
    const requirements = await agent.prepare();
    const task = scaffoldedTask();
    const sandbox = await DockerSandbox.create({
      image: "unused-when-requirements-name-one",
      limits: task.spec.limits,
      labels: containerLabels({ runId: "installed-test", trialId: "outage", taskId: task.id }),
      requirements,
    });
    try {
      const ctx = runContext(sandbox, { task, condition: "-A" });
      const result = await agent.run(ctx);
      expect(result.stopReason).toBe("error");
      expect(result.error).toMatchObject({ class: "infra", kind: "provider-outage" });
      expect(server!.requests).toHaveLength(3);
      expect(ctx.trajectory.events.filter((e) => e.kind === "retry")).toHaveLength(2);
      const env = await sandbox.exec(["sh", "-c", "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"]);
      expect(env.stdout).toContain("HOME=/home/agent");
      expect(env.stdout).not.toContain(UPSTREAM_KEY);
      const direct = await sandbox.exec([
        "node",
        "-e",
        `fetch('${server!.anthropicUrl}').then(() => console.log('reached'), () => console.log('no route'))`,
      ]);
      expect(direct.stdout.trim()).toBe("no route");
    } finally {
      await sandbox.remove();
      await agent.dispose();
    }
  });

  it("stops on the token budget (the relay refuses) and on the wall clock (the exec times out)", async () => {
    const task = scaffoldedTask();
    const busy = {
      toolCalls: [{ name: "bash", input: { command: "echo busy" } }],
      usage: { input: 600, output: 100 },
    };
    const budgeted = await standinAgent([busy], { tokenBudget: 1000 });
    const requirements = await budgeted.prepare();
    const sandbox = await DockerSandbox.create({
      image: "unused-when-requirements-name-one",
      limits: task.spec.limits,
      labels: containerLabels({ runId: "installed-test", trialId: "limits", taskId: task.id }),
      requirements,
    });
    try {
      const spent = await budgeted.run(runContext(sandbox, { task, condition: "-A" }));
      expect(spent.stopReason).toBe("token-budget");
      expect(spent.usage.modelCalls).toBe(2);
      expect(server!.requests).toHaveLength(2);
      await budgeted.dispose();
      await server!.close();

      const slow = await standinAgent([{ text: "late", delayMs: 30_000 }], { timeoutSec: 2 });
      await slow.prepare();
      const started = Date.now();
      const late = await slow.run(runContext(sandbox, { task, condition: "-A" }));
      expect(late.stopReason).toBe("timeout");
      expect(late.error).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(15_000);
      await slow.dispose();
    } finally {
      await sandbox.remove();
    }
  });
});
