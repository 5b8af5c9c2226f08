// Installed harnesses in Docker. The harness image: built once from the sandbox image (cached by
// digest), Claude Code, Codex CLI and OpenCode at their pinned versions start offline. Then the relay path end
// to end: the stand-in CLI runs inside a sandbox with no network and reaches the loopback model only
// through forwarder -> unix socket -> relay (which injects the key and counts tokens); the real trial
// runner writes records and trajectories. One file, so the image is built once per suite.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AdaptiveLimits,
  type AgentConfigInput,
  claudeCode,
  codex,
  ensureHarnessImage,
  type HarnessAdapter,
  INSTALLED_HARNESSES,
  InstalledAgent,
  planHarnessImage,
  readTrajectory,
} from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { outcomeOf } from "../src/record/index.ts";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { ensureSandboxImage } from "../src/sandbox/docker/image.ts";
import type { TrialSandbox } from "../src/sandbox/index.ts";
import { containerLabels } from "../src/sandbox/index.ts";
import type { Condition, LoadedTask } from "../src/task/index.ts";
import { agentConfig, runContext, scaffoldedTask } from "./support/agent-context.ts";
import { engineTrials, providerSandbox, TestDockerProvider } from "./support/engine.ts";
import {
  type ModelServer,
  type Script,
  type ScriptStep,
  type SeenRequest,
  startModelServer,
  turnIndex,
} from "./support/model-server.ts";
import { standin } from "./support/standin.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));

let image: string;
let probe: TrialSandbox;

/** The local daemon with the global setup's sandbox image: the harness image is built or found there. */
const local = new TestDockerProvider();

beforeAll(async () => {
  image = await ensureHarnessImage(repo, local, (line) => process.stderr.write(`[harness image] ${line}\n`));
  probe = await providerSandbox({
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
    expect(plan.packages).toBe("@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 opencode-ai@1.18.33");
    expect(planHarnessImage(repo, "kgate-sandbox:other").tag).not.toBe(plan.tag);
    expect(await new DockerClient().imageId(image)).not.toBeNull();
    expect(await ensureHarnessImage(repo, local)).toBe(image);
  });

  it("runs `claude`, `codex` and `opencode --version` offline, as the non-root sandbox user", async () => {
    const claude = await probe.exec(["claude", "--version"], { timeoutSec: 60 });
    expect(claude.stdout).toContain(`${INSTALLED_HARNESSES["claude-code"].version} (Claude Code)`);
    const codex = await probe.exec(["codex", "--version"], { timeoutSec: 60 });
    expect(codex.stdout).toContain(`codex-cli ${INSTALLED_HARNESSES.codex.version}`);
    const opencode = await probe.exec(["opencode", "--version"], { timeoutSec: 60 });
    expect(opencode.stdout.trim()).toBe(INSTALLED_HARNESSES.opencode.version);
    // OpenCode's skill, glob and grep tools need ripgrep, which it cannot download offline
    expect((await probe.exec(["rg", "--version"])).stdout).toMatch(/^ripgrep \d+/);
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

function installedAgent(
  script: Script,
  adapter: HarnessAdapter,
  overrides: Partial<AgentConfigInput> = {},
): Promise<InstalledAgent> {
  return startModelServer(script, { requireKey: UPSTREAM_KEY }).then((started) => {
    server = started;
    const openai = adapter.name === "codex";
    const config = agentConfig(adapter.name, {
      harness: openai ? "codex" : "claude-code",
      provider: openai ? "openai" : "anthropic",
      model: "scripted",
      baseUrl: openai ? started.openaiUrl : started.anthropicUrl,
      apiKeyEnv: "KGATE_TEST_UPSTREAM_KEY",
      retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
      pricing: { inputPerMTok: 5, outputPerMTok: 25 },
      ...overrides,
    });
    return new InstalledAgent(config, {
      adapter,
      env: { KGATE_TEST_UPSTREAM_KEY: UPSTREAM_KEY },
      ensureImage: (provider) => ensureHarnessImage(repo, provider),
    });
  });
}

/**
 * A scripted model driving the real Claude Code on the demo task: load the skill Claude Code lists
 * (its Skill tool), else look around; apply the 12% rate if the specification's text reached the
 * conversation, no overhead otherwise; write the output with Bash; stop. Side calls without tools
 * (Claude Code makes some) get a plain answer.
 */
function claudeCodePolicy(request: SeenRequest): ScriptStep {
  if (!Array.isArray(request.body.tools) || request.body.tools.length === 0) return { text: "ok" };
  const turn = turnIndex(request);
  if (turn === 0) {
    const skill = /- (\S+): The established internal specification/.exec(JSON.stringify(request.body))?.[1];
    if (skill) return { toolCalls: [{ name: "Skill", input: { skill } }] };
    return { toolCalls: [{ name: "Bash", input: { command: "ls -la", description: "look around" } }] };
  }
  if (turn === 1) {
    const rate = /overhead rate of 12%/.test(JSON.stringify(request.body.messages)) ? 1.12 : 1;
    const command = `mkdir -p output && awk -F, 'NR==1{print "item,value"; next}{printf "%s,%.2f\\n", $1, $2*${rate}}' input.csv > output/result.csv`;
    return { toolCalls: [{ name: "Bash", input: { command, description: "write the result" } }] };
  }
  return { text: "Wrote output/result.csv." };
}

/**
 * The same scripted model for the real Codex CLI (Responses API): read the skill file Codex lists
 * with its exec_command tool, decide the rate from what came back, write the output, stop.
 */
function codexPolicy(request: SeenRequest): ScriptStep {
  const turn = turnIndex(request);
  if (turn === 0) {
    const listed = /- (\S+): The established internal specification/.exec(JSON.stringify(request.body))?.[1];
    const cmd = listed ? `cat .agents/skills/${listed}/SKILL.md` : "ls -la";
    return { toolCalls: [{ name: "exec_command", input: { cmd } }] };
  }
  if (turn === 1) {
    const rate = /overhead rate of 12%/.test(JSON.stringify(request.body.input)) ? 1.12 : 1;
    const cmd = `mkdir -p output && awk -F, 'NR==1{print "item,value"; next}{printf "%s,%.2f\\n", $1, $2*${rate}}' input.csv > output/result.csv`;
    return { toolCalls: [{ name: "exec_command", input: { cmd } }] };
  }
  return { text: "Wrote output/result.csv." };
}

async function installedTrial(task: LoadedTask, condition: Condition, adapter: HarnessAdapter = claudeCode) {
  const agent = await installedAgent(adapter === codex ? codexPolicy : claudeCodePolicy, adapter);
  const paths = projectPaths(path.dirname(path.dirname(task.dir)));
  const runDir = path.join(paths.runs, "installed-test");
  const [record] = await engineTrials({
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

describe("the real Claude Code through the relay (Docker, scripted loopback model)", () => {
  it("under +A Claude Code lists the skill, loads it, and the artefact's convention is applied", async () => {
    const task = scaffoldedTask();
    const { record, runDir, output } = await installedTrial(task, "+A");
    expect(record.error).toBeNull();
    expect(record.stopReason).toBe("finish");
    expect(output()).toBe("item,value\nwidget,3.36\ngadget,5.60\n");
    expect(record.agent).toMatchObject({ name: "claude-code", harness: "claude-code", model: "scripted" });
    expect(record.usage.modelCalls).toBeGreaterThanOrEqual(3);
    expect(record.usage.inputTokens).toBeGreaterThan(1000);
    expect(record.usage.costUsd).toBeGreaterThan(0);
    expect(record.artefactListed).toBe(true);
    expect(record.artefactOpened).toBe(true);
    const { events } = readTrajectory(path.join(runDir, record.trajectory!));
    expect(events.find((e) => e.type === "tool-call")).toMatchObject({
      name: "Skill",
      input: { skill: "specification" },
    });
    expect(
      events.some((e) => e.kind === "harness-context" && String(e.text).includes("overhead rate of 12%")),
    ).toBe(true);
    expect(events.find((e) => e.kind === "harness-exit")).toMatchObject({ exitCode: 0, subtype: "success" });
    expect(server!.requests.every((r) => r.headers["x-api-key"] === UPSTREAM_KEY)).toBe(true);
  });

  it("under -A nothing of the artefact exists: no skill, the default convention, no leak", async () => {
    const task = scaffoldedTask();
    const { record, output } = await installedTrial(task, "-A");
    expect(record.error).toBeNull();
    expect(output()).toBe("item,value\nwidget,3.00\ngadget,5.00\n");
    expect(record.artefactListed).toBe(false);
    expect(record.artefactOpened).toBeNull();
    expect(record.canaryLeak).toBe(false);
    expect(JSON.stringify(server!.requests[0]!.body)).not.toContain(
      "The established internal specification for this task",
    );
  });
});

describe("the real Codex CLI through the relay (Docker, scripted loopback model, Responses API)", () => {
  it("under +A Codex lists the skill in .agents/skills, reads it, and the artefact's convention is applied", async () => {
    const task = scaffoldedTask();
    const { record, runDir, output } = await installedTrial(task, "+A", codex);
    expect(record.error).toBeNull();
    expect(record.stopReason).toBe("finish");
    expect(output()).toBe("item,value\nwidget,3.36\ngadget,5.60\n");
    expect(record.agent).toMatchObject({ name: "codex", harness: "codex", model: "scripted" });
    expect(record.usage.modelCalls).toBe(3);
    expect(record.artefactOpened).toBe(true);
    const { events } = readTrajectory(path.join(runDir, record.trajectory!));
    expect(events.find((e) => e.type === "tool-call")).toMatchObject({
      name: "exec_command",
      input: { cmd: "cat .agents/skills/specification/SKILL.md" },
    });
    expect(server!.requests.every((r) => r.headers.authorization === `Bearer ${UPSTREAM_KEY}`)).toBe(true);
    expect(JSON.stringify(server!.requests[0]!.body.tools)).not.toContain("web_search");
  });
});

describe("an installed harness through the relay: failures and limits (Docker, stand-in CLI)", () => {
  it("a persistent upstream 500 ends as an infra error, and the key never enters the container", async () => {
    const agent = await installedAgent([{ status: 500, message: "upstream down" }], standin);
    const requirements = await agent.prepare({ provider: local, limits: new AdaptiveLimits() });
    const task = scaffoldedTask();
    const sandbox = await providerSandbox({
      image: "unused-when-requirements-name-one",
      limits: task.spec.limits,
      labels: containerLabels({ runId: "installed-test", trialId: "outage", taskId: task.id }),
      requirements,
    });
    try {
      const ctx = runContext(sandbox, { task, condition: "-A" });
      const result = await agent.run(ctx);
      expect(result.stopReason).toBe("error");
      expect(result.error).toMatchObject({ owner: "provider", kind: "provider-outage" });
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

  it("a planted provider 400 and then its harness killed is the agent's (agent-exit), not the provider's (round 2, R1)", async () => {
    // The agent's bash sends one request the provider rejects, with the harness's own token, then
    // kills its harness (the shell's parent): before issue 29 the record said provider-rejected
    // (infra, not counted), laundering the agent's own failure.
    const poison = [
      `node -e 'fetch("http://127.0.0.1:4100/v1/messages",{method:"POST",headers:{"x-api-key":process.env.ANTHROPIC_API_KEY,"content-type":"application/json"},body:JSON.stringify({model:"x",max_tokens:5,temperature:5,messages:[{role:"user",content:"x"}],tools:[{name:"t",input_schema:{type:"object"}}]})}).then(r=>console.log("poison",r.status))'`,
      "kill -9 $(ps -o ppid= -p $$ 2>/dev/null || awk '{print $4}' /proc/$$/stat)",
    ].join("; ");
    const agent = await installedAgent(
      (req, index) =>
        req.body.temperature === 5
          ? { status: 400, message: "temperature: range: 0..1" }
          : index === 0
            ? { toolCalls: [{ name: "bash", input: { command: poison } }] }
            : { text: "done" },
      standin,
    );
    const record = await oneEngineTrial(agent, "installed-launder");
    expect(server!.requests.filter((r) => r.body.temperature === 5)).toHaveLength(1);
    expect(record.error).toMatchObject({ kind: "agent-exit", owner: "agent" });
    expect(record.error?.message).toContain("was killed");
    expect(outcomeOf(record)).toBe("fail");
  });

  it("after the agent acted, a 400 on its conversation ends the harness as the agent's; a 500 stays the provider's", async () => {
    const act = { toolCalls: [{ name: "bash", input: { command: "echo acted" } }] };
    const refused = await installedAgent(
      [act, { status: 400, message: "messages.2: image too large" }],
      standin,
    );
    const rejected = await runInOwnContainer(refused, "rejected");
    // the stand-in exits 1 on its own after the refusal: the request's content was the agent's doing
    expect(rejected.error).toMatchObject({ kind: "agent-exit", owner: "agent" });
    expect(rejected.error?.message).toContain(
      "the provider had refused a request of the agent's conversation",
    );
    expect(rejected.error?.message).toContain("image too large");
    const down = await installedAgent([act, { status: 500, message: "upstream down" }], standin);
    const outage = await runInOwnContainer(down, "outage-after-acting");
    // the relay's own upstream failure (a 500 past 2 retries) is infrastructure, turns or not
    expect(outage.error).toMatchObject({ kind: "provider-outage", owner: "provider" });
  });

  it("stops on the token budget: the relay refuses the next call", async () => {
    const busy = {
      toolCalls: [{ name: "bash", input: { command: "echo busy" } }],
      usage: { input: 600, output: 100 },
    };
    const agent = await installedAgent([busy], standin, { tokenBudget: 1000 });
    const result = await runInOwnContainer(agent, "budget");
    expect(result.stopReason).toBe("token-budget");
    expect(result.error).toBeUndefined();
    // The first call spends 600 + 100 = 700 of the 1000. The second request carries the instruction
    // again with the first turn (well over 600 bytes): its input bound (bytes / 2) alone is over the
    // 300 left, so it is refused before it could spend 600 input tokens past the budget.
    expect(result.usage.modelCalls).toBe(1);
    expect(result.usage.inputTokens + result.usage.outputTokens).toBe(700);
    expect(server!.requests).toHaveLength(1);
  });

  it("stops on the wall clock: the harness is ended inside the container", async () => {
    const agent = await installedAgent([{ text: "late", delayMs: 30_000 }], standin, { timeoutSec: 2 });
    const started = Date.now();
    const result = await runInOwnContainer(agent, "timeout");
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("a cancelled run ends the harness and the trial is cancelled, never a timeout or the agent's failure", async () => {
    const agent = await installedAgent([{ text: "late", delayMs: 30_000 }], standin);
    const task = scaffoldedTask();
    const paths = projectPaths(path.dirname(path.dirname(task.dir)));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("SIGTERM")), 3000);
    const started = Date.now();
    const [record] = await engineTrials({
      paths,
      task,
      condition: "-A",
      agent,
      runId: "installed-cancel",
      runDir: path.join(paths.runs, "installed-cancel"),
      n: 1,
      retries: 0,
      signal: controller.signal,
    });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(record?.stopReason).toBe("cancelled");
    expect(record?.error).toMatchObject({ kind: "cancelled", owner: "cancelled" });
    expect(outcomeOf(record!)).toBe("infra");
  });
});

/** One trial of `agent` through the real engine (record and trajectory on disk), then disposed. */
async function oneEngineTrial(agent: InstalledAgent, runId: string) {
  const task = scaffoldedTask();
  const paths = projectPaths(path.dirname(path.dirname(task.dir)));
  try {
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
    return record!;
  } finally {
    await agent.dispose();
  }
}

/** Prepares the agent, runs it once under -A in a container made for it, and cleans up. */
async function runInOwnContainer(agent: InstalledAgent, name: string) {
  const task = scaffoldedTask();
  const requirements = await agent.prepare({ provider: local, limits: new AdaptiveLimits() });
  const sandbox = await providerSandbox({
    image: "unused-when-requirements-name-one",
    limits: task.spec.limits,
    labels: containerLabels({ runId: "installed-test", trialId: name, taskId: task.id }),
    requirements,
  });
  try {
    return await agent.run(runContext(sandbox, { task, condition: "-A", agent }));
  } finally {
    await sandbox.remove();
    await agent.dispose();
  }
}
