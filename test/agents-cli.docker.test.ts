// `kgate agents` and `kgate show`: through the real bin once each, and in-process for the variants
// (JSON output, bad configuration, unknown runs and trials, run tables).
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { PING_TIMEOUT_MS, resolveAgent } from "../src/agents/index.ts";
import { run as agents } from "../src/commands/agents.ts";
import type { CommandContext } from "../src/commands/context.ts";
import { run as show } from "../src/commands/show.ts";
import type { ProjectPaths } from "../src/project.ts";
import { TrialRecord, UNVERIFIED } from "../src/record/index.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { appendTrialRecord, trialBudget } from "../src/trial/index.ts";
import { KGATE_BIN, kgate } from "./support/cli.ts";
import { startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";

function capture(paths: ProjectPaths): CommandContext & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  stdout.on("data", (c: Buffer) => o.push(c));
  stderr.on("data", (c: Buffer) => e.push(c));
  return {
    paths,
    stdout,
    stderr,
    out: () => Buffer.concat(o).toString(),
    err: () => Buffer.concat(e).toString(),
  };
}

/** The bin starts through tsx: tens of seconds each on a loaded CI machine. */
const BIN_TIMEOUT = 120_000;

/** A loopback URL that refuses connections: a port that was just listening and is now closed. */
async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return `http://127.0.0.1:${port}/v1`;
}

const CONFIG = {
  agents: {
    loop: { harness: "builtin", provider: "anthropic", model: "claude-x", apiKeyEnv: "KGATE_CLI_TEST_KEY" },
    cc: { harness: "claude-code", provider: "anthropic", model: "claude-x", apiKeyEnv: "KGATE_CLI_TEST_KEY" },
    local: {
      harness: "builtin",
      provider: "openai-compatible",
      model: "q",
      baseUrl: "http://localhost:11434/v1",
      apiKeyEnv: null,
    },
  },
};

describe("kgate agents", () => {
  it("lists built-in and configured agents, saying which keys are missing (bin)", {
    timeout: BIN_TIMEOUT,
  }, () => {
    const project = tempProject();
    writeJson(project.config, CONFIG);
    const result = kgate(["agents", "--offline"], { cwd: project.root, env: { KGATE_CLI_TEST_KEY: "" } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/built in\s+oracle, noop/);
    expect(result.stdout).toMatch(/no key\s+loop\s+builtin@2 · anthropic · claude-x/);
    expect(result.stdout).toMatch(/KGATE_CLI_TEST_KEY not set/);
    // offline, nothing is pinged, so nothing can be called ready
    expect(result.stdout).toMatch(/runnable\s+local/);
    expect(result.stdout).toMatch(/endpoint not pinged \(--offline\)/);
    expect(result.stdout).toMatch(/no key needed · image kgate-sandbox:[0-9a-f]{12}/);
    expect(result.stdout).toMatch(/image kgate-harness:[0-9a-f]{12}/);
    expect(result.stdout).toMatch(/3 configured agent\(s\), 1 runnable, 0 ready \(--offline/);
  });

  it("says ready only when the endpoint answers; a refused URL is named at once (bin)", {
    timeout: BIN_TIMEOUT,
  }, async () => {
    const server = await startModelServer([{ text: "unused" }], { requireKey: "sk-probe" });
    try {
      const refused = await refusingUrl();
      const project = tempProject();
      const base = { harness: "builtin", model: "m", apiKeyEnv: "KGATE_PROBE_KEY" };
      writeJson(project.config, {
        agents: {
          up: { ...base, provider: "openai-compatible", baseUrl: server.openaiUrl },
          "up-anthropic": { ...base, provider: "anthropic", baseUrl: server.anthropicUrl },
          "wrong-key": {
            ...base,
            provider: "openai-compatible",
            baseUrl: server.openaiUrl,
            apiKeyEnv: "KGATE_PROBE_BAD",
          },
          down: { ...base, provider: "openai-compatible", baseUrl: refused },
        },
      });
      const env = { KGATE_PROBE_KEY: "sk-probe", KGATE_PROBE_BAD: "sk-wrong" };
      const ran = await kgateAsync(["agents"], { cwd: project.root, env });
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/ready\s+up\s+builtin@2 · openai-compatible · m/);
      expect(ran.stdout).toMatch(/ready\s+up-anthropic\s+builtin@2 · anthropic · m/);
      expect(ran.stdout).toMatch(/key refused\s+wrong-key/);
      expect(ran.stdout).toMatch(/unreachable\s+down/);
      expect(ran.stdout).toContain(
        `endpoint ${refused}/models unreachable: Connection error. (ECONNREFUSED)`,
      );
      expect(ran.stdout).toContain(`endpoint ${server.anthropicUrl}/v1/models answered (HTTP 200`);
      // up, up-anthropic, wrong-key each asked the loopback server once: 3 calls
      expect(server.modelListCalls.count).toBe(3);
      expect(ran.stdout).toMatch(/4 configured agent\(s\), 4 runnable, 2 ready/);

      const json = capture(project);
      Object.assign(process.env, env);
      try {
        expect(await agents(json, { json: true })).toBe(0);
      } finally {
        delete process.env.KGATE_PROBE_KEY;
        delete process.env.KGATE_PROBE_BAD;
      }
      const down = JSON.parse(json.out()).agents.find((a: { name: string }) => a.name === "down");
      expect(down).toMatchObject({
        ready: false,
        status: "unreachable",
        endpoint: { state: "unreachable", url: `${refused}/models`, status: null },
      });
      // no retries: a refused connection is reported well inside one probe timeout, not after a minute
      expect(down.endpoint.ms).toBeLessThan(PING_TIMEOUT_MS);

      const offline = capture(project);
      process.env.KGATE_PROBE_KEY = "sk-probe";
      try {
        expect(await agents(offline, { json: true, offline: true })).toBe(0);
      } finally {
        delete process.env.KGATE_PROBE_KEY;
      }
      // 3 from the bin run + 3 from the JSON run, none more offline
      expect(server.modelListCalls.count).toBe(6);
      const up = JSON.parse(offline.out()).agents.find((a: { name: string }) => a.name === "up");
      expect(up).toMatchObject({
        ready: false,
        status: "runnable",
        endpoint: { state: "not-pinged", reason: "--offline" },
      });
    } finally {
      await server.close();
    }
  });

  it("reports keys, image tags, digests as JSON; a bad file exits 1 naming file and field", async () => {
    const project = tempProject();
    writeJson(project.config, CONFIG);
    process.env.KGATE_CLI_TEST_KEY = "sk-test";
    const ctx = capture(project);
    try {
      expect(await agents(ctx, { json: true })).toBe(0);
    } finally {
      delete process.env.KGATE_CLI_TEST_KEY;
    }
    const out = JSON.parse(ctx.out());
    expect(out.builtin.map((b: { name: string }) => b.name)).toEqual(["oracle", "noop"]);
    const cc = out.agents.find((a: { name: string }) => a.name === "cc");
    expect(cc).toMatchObject({
      harness: "claude-code@2.1.332",
      key: { env: "KGATE_CLI_TEST_KEY", present: true },
      runnable: true,
    });
    expect(cc.image.tag).toMatch(/^kgate-harness:[0-9a-f]{12}$/);
    expect(typeof cc.image.built).toBe("boolean");
    expect(cc.digest).toMatch(/^[0-9a-f]{64}$/);

    writeJson(project.config, { agents: { bad: { harness: "codex", provider: "anthropic", model: "m" } } });
    const badCtx = capture(project);
    expect(await agents(badCtx, {})).toBe(1);
    expect(badCtx.out()).toMatch(
      /error kgate\.config\.json: agents\.bad\.provider: harness codex speaks the OpenAI Responses API/,
    );
  });

  it("kgate run resolves configured names and lists them when the name is unknown", async () => {
    const project = tempProject();
    writeJson(project.config, CONFIG);
    const agent = await resolveAgent(project, "cc");
    expect(agent).toMatchObject({ name: "cc", harness: "claude-code", model: "claude-x" });
    expect((await resolveAgent(project, "loop")).harness).toBe("builtin");
    await expect(resolveAgent(project, "nope")).rejects.toThrow(
      'unknown agent "nope" (known: oracle, noop, loop, cc, local)',
    );
  });
});

function writeRun(project: ProjectPaths) {
  const runDir = path.join(project.runs, "r1");
  const trialId = "demo.with-A.loop.0";
  const trajectory = `trials/${trialId}/trajectory.jsonl`;
  mkdirSync(path.join(runDir, "trials", trialId), { recursive: true });
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const events = [
    {
      at: at(0),
      type: "note",
      kind: "start",
      harness: "builtin@1",
      model: "claude-x",
      limits: { maxTurns: 5 },
    },
    {
      at: at(1),
      type: "model",
      turn: 1,
      usage: { input: 1200, output: 40, cacheRead: 0 },
      stopReason: "tool-use",
      text: "Reading.",
      toolCalls: [],
    },
    { at: at(1), type: "tool-call", turn: 1, id: "t1", name: "bash", input: { command: "cat docs/spec.md" } },
    {
      at: at(2),
      type: "tool-result",
      turn: 1,
      id: "t1",
      name: "bash",
      isError: false,
      exitCode: 0,
      output: Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n"),
    },
    {
      at: at(3),
      type: "note",
      kind: "retry",
      retry: 1,
      of: 5,
      delayMs: 800,
      failure: "rate-limit",
      status: 429,
    },
    { at: at(5), type: "note", kind: "stop", stopReason: "finish", turns: 2 },
  ];
  writeFileSync(path.join(runDir, trajectory), `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
  const record = TrialRecord.parse({
    recordVersion: 1,
    runId: "r1",
    trialId,
    index: 0,
    task: { id: "demo", digests: { task: "t", instruction: "i", environment: "e" } },
    condition: "+A",
    artefactDigest: "a",
    fileSetDigest: "f",
    agent: { name: "loop", digest: "d".repeat(64), harness: "builtin", model: "claude-x" },
    startedAt: at(0),
    finishedAt: at(6),
    phases: {},
    budget: trialBudget({ limits: { timeoutSec: 900, maxTokens: 500_000, maxTurns: 50 }, sandbox: true }),
    usage: { inputTokens: 1200, outputTokens: 40, modelCalls: 2, costUsd: 0.0042 },
    stopReason: "finish",
    outputs: [],
    verdict: { ...UNVERIFIED, status: "fail", attribution: "default-convention", reason: "wrong" },
    error: null,
    trajectory,
    artefactListed: true,
    artefactOpened: true,
  });
  appendTrialRecord(runDir, record);
  return { trialId };
}

describe("kgate show", () => {
  it("prints a trial's record and trajectory readably (bin)", { timeout: BIN_TIMEOUT }, () => {
    const project = tempProject();
    const { trialId } = writeRun(project);
    const result = kgate(["show", `r1/${trialId}`], { cwd: project.root });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/trial demo\.with-A\.loop\.0/);
    expect(result.stdout).toMatch(/task\s+demo\s+\+A\s+artefact listed: yes\s+opened: yes/);
    expect(result.stdout).toMatch(/verdict\s+FAIL .* attribution default-convention/);
    expect(result.stdout).toMatch(
      /usage\s+1,200 in · 40 out · 0 cache read · 0 cache write · 2 calls · \$0\.0042/,
    );
    // the budget the trial ran under: 900 s, 500,000 tokens, 50 turns, the sandbox's 900 + 600 s
    expect(result.stdout).toMatch(/budget\s+900 s · 500,000 tokens · 50 turns\s+sandbox ends by 1500 s/);
    expect(result.stdout).toMatch(/\+1\.0s\s+model #1\s+1,200 in \/ 40 out/);
    expect(result.stdout).toMatch(/→ bash\s+cat docs\/spec\.md/);
    expect(result.stdout).toMatch(/\| line 8\n.*\| \.\.\. 4 more line\(s\)/);
    expect(result.stdout).toMatch(/retry\s+rate-limit \(429\), retry 1\/5 in 800 ms/);
    expect(result.stdout).toMatch(/stop\s+finish after 2 turn\(s\)/);
  });

  it("lists a run's trials, prints JSON, shows everything with --full, and refuses unknown refs", async () => {
    const project = tempProject();
    const { trialId } = writeRun(project);
    const table = capture(project);
    expect(await show(table, "r1", {})).toBe(0);
    expect(table.out()).toMatch(/demo\.with-A\.loop\.0\s+fail\s+finish\s+1,240\s+\$0\.0042/);
    const json = capture(project);
    await show(json, `runs/r1/${trialId}`, { json: true });
    const parsed = JSON.parse(json.out());
    expect(parsed.record.trialId).toBe(trialId);
    expect(parsed.events).toHaveLength(6);
    const full = capture(project);
    await show(full, `r1/${trialId}`, { full: true });
    expect(full.out()).toContain("| line 12");
    await expect(show(capture(project), "r2", {})).rejects.toThrow(/no run "r2"/);
    await expect(show(capture(project), "r1/nope", {})).rejects.toThrow(
      /run "r1" has no trial "nope" \(trials: demo\.with-A\.loop\.0\)/,
    );
  });
});

function kgateAsync(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(process.execPath, [KGATE_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

describe("kgate run with a configured agent", () => {
  it("runs the built-in harness named in kgate.config.json, then kgate show prints the trial", {
    timeout: 2 * BIN_TIMEOUT,
  }, async () => {
    const server = await startModelServer(
      [
        {
          toolCalls: [
            { name: "bash", input: { command: "mkdir -p output && echo item,value > output/result.csv" } },
          ],
        },
        { status: 429 },
        { text: "done", toolCalls: [{ name: "finish", input: {} }] },
      ],
      { requireKey: "sk-cli" },
    );
    try {
      const project = tempProject();
      scaffoldTask(project, { id: "demo", gate: "convention" });
      writeJson(project.config, {
        agents: {
          scripted: {
            harness: "builtin",
            provider: "openai-compatible",
            model: "qwen-scripted",
            baseUrl: server.openaiUrl,
            apiKeyEnv: "KGATE_CLI_RUN_KEY",
            retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 },
          },
        },
      });
      const ran = await kgateAsync(["run", "demo", "--agent", "scripted", "--condition", "-A", "--json"], {
        cwd: project.root,
        env: { KGATE_CLI_RUN_KEY: "sk-cli" },
      });
      expect(ran.stderr).toMatch(/scripted: rate-limit \(429\), retry 1\/2 in \d+ ms/);
      // the 429 with one call in flight set the run's adaptive limit to 1 (1 / 2 floors to 0, kept at 1)
      expect(ran.stderr).toContain(
        `openai-compatible ${server.openaiUrl.replace(/\/+$/, "")}: 1 model call(s) at once (adaptive)`,
      );
      expect(ran.code).toBe(0);
      const { runId, records } = JSON.parse(ran.stdout);
      expect(records[0]).toMatchObject({
        agent: { name: "scripted", harness: "builtin", model: "qwen-scripted" },
        stopReason: "finish",
        usage: { modelCalls: 2 },
        error: null,
        artefactListed: false,
      });
      const shown = await kgateAsync(["show", `${runId}/${records[0].trialId}`], {
        cwd: project.root,
        env: {},
      });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(/agent\s+scripted\s+builtin\s+qwen-scripted/);
      expect(shown.stdout).toMatch(/retry\s+rate-limit \(429\), retry 1\/2/);
      expect(shown.stdout).toMatch(/→ finish/);
    } finally {
      await server.close();
    }
  });
});
