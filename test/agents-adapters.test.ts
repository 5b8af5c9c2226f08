// Installed harness adapters: how Claude Code, Codex and OpenCode are launched against the relay (no key, only
// the trial's token), where skills go, and how their final reports are read. Plus the stand-in CLI
// through the real relay and forwarder on the host.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SystemPromptPolicy } from "../src/agents/config.ts";
import { claudeCode, codex } from "../src/agents/installed/adapters.ts";
import type { LaunchInput } from "../src/agents/installed/harness-adapter.ts";
import { opencode } from "../src/agents/installed/opencode.ts";
import { Relay } from "../src/agents/relay/server.ts";
import { TrajectoryRecorder } from "../src/agents/trajectory.ts";
import { startForwarder } from "./support/forwarder.ts";
import {
  lastToolResults,
  type ModelServer,
  type SeenRequest,
  startModelServer,
} from "./support/model-server.ts";
import { tempProject } from "./support/project.ts";
import { STANDIN_CLI } from "./support/standin.ts";

const input = (systemPrompt: Partial<SystemPromptPolicy> = {}): LaunchInput => ({
  model: "claude-opus-x",
  maxTurns: 7,
  maxOutputTokens: 9000,
  systemPrompt: SystemPromptPolicy.parse(systemPrompt),
  relayUrl: "http://127.0.0.1:4100",
  token: "kgate-relay-abc",
  home: "/home/agent",
});

describe("Claude Code adapter", () => {
  it("runs claude -p headless against the relay with the token as its key and every model pinned", () => {
    const { argv, env } = claudeCode.launch(input());
    expect(argv).toEqual([
      "claude",
      "-p",
      "--output-format",
      "json",
      "--model",
      "claude-opus-x",
      "--max-turns",
      "7",
      "--dangerously-skip-permissions",
      "--disallowedTools",
      "WebSearch,WebFetch",
    ]);
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:4100",
      ANTHROPIC_API_KEY: "kgate-relay-abc",
      ANTHROPIC_SMALL_FAST_MODEL: "claude-opus-x",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: "9000",
    });
    expect(claudeCode.skillsDir).toBe(".claude/skills");
  });

  it("maps the system prompt policy to --system-prompt / --append-system-prompt", () => {
    expect(claudeCode.launch(input({ mode: "replace", text: "R" })).argv.slice(-2)).toEqual([
      "--system-prompt",
      "R",
    ]);
    expect(claudeCode.launch(input({ mode: "append", text: "A" })).argv.slice(-2)).toEqual([
      "--append-system-prompt",
      "A",
    ]);
  });

  it("reads its JSON result, including its own turn limit", () => {
    const tail = `partial line}\n${JSON.stringify({ type: "result", subtype: "error_max_turns", num_turns: 7, is_error: true })}\n`;
    expect(claudeCode.report(tail)).toEqual({
      stopReason: "max-turns",
      facts: { subtype: "error_max_turns", isError: true, numTurns: 7, harnessCostUsd: undefined },
    });
    expect(claudeCode.report("no json here").stopReason).toBeUndefined();
  });

  it("keeps its final `result` text for the monitoring follow-up, and none when it is not a string", () => {
    const line = (result: unknown) => `${JSON.stringify({ type: "result", subtype: "success", result })}\n`;
    expect(claudeCode.report(line("Wrote it.")).finalMessage).toBe("Wrote it.");
    expect(claudeCode.report(line({ text: "x" }))).not.toHaveProperty("finalMessage");
  });
});

describe("Codex adapter", () => {
  it("runs codex exec with a relay-backed provider on the Responses API, prompt on stdin", () => {
    const { argv, env } = codex.launch(input({ mode: "append", text: 'say "hi"' }));
    expect(argv.slice(0, 8)).toEqual([
      "codex",
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "--model",
      "claude-opus-x",
      "-c",
    ]);
    expect(argv).toContain('model_providers.kgate.base_url="http://127.0.0.1:4100/v1"');
    expect(argv).toContain('model_providers.kgate.env_key="KGATE_RELAY_TOKEN"');
    expect(argv).toContain('web_search="disabled"');
    expect(argv).toContain('developer_instructions="say \\"hi\\""');
    expect(argv.at(-1)).toBe("-");
    expect(env).toEqual({ HOME: "/home/agent", KGATE_RELAY_TOKEN: "kgate-relay-abc" });
    expect(codex.skillsDir).toBe(".agents/skills");
  });

  it("reads turn.completed / turn.failed from its JSON events", () => {
    expect(codex.report('{"type":"turn.completed","usage":{}}\n').facts).toEqual({
      completed: true,
      failure: null,
    });
    expect(codex.report('{"type":"turn.failed","error":{"message":"x"}}\n').facts).toMatchObject({
      completed: false,
      failure: { type: "turn.failed" },
    });
  });

  it("takes the last agent_message as its final message (events are read from the end)", () => {
    const events = [
      { type: "item.completed", item: { type: "agent_message", text: "first" } },
      { type: "item.completed", item: { type: "command_execution", text: "not a message" } },
      { type: "item.completed", item: { type: "agent_message", text: "last" } },
      { type: "turn.completed", usage: {} },
    ];
    const tail = events.map((e) => JSON.stringify(e)).join("\n");
    expect(codex.report(tail).finalMessage).toBe("last");
    expect(
      codex.report('{"type":"item.completed","item":{"type":"agent_message","text":7}}'),
    ).not.toHaveProperty("finalMessage");
  });
});

describe("OpenCode adapter", () => {
  it("runs opencode run with an inline relay-backed Chat Completions provider, web tools off", () => {
    const { argv, env } = opencode.launch({ ...input(), temperature: 0.7 });
    expect(argv).toEqual(["opencode", "run", "--format", "json", "--model", "kgate/claude-opus-x"]);
    const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT!);
    expect(config.provider.kgate).toMatchObject({
      npm: "@ai-sdk/openai-compatible",
      options: { baseURL: "http://127.0.0.1:4100/v1", apiKey: "kgate-relay-abc" },
      models: { "claude-opus-x": { limit: { output: 9000 } } },
    });
    expect(config).toMatchObject({
      model: "kgate/claude-opus-x",
      small_model: "kgate/claude-opus-x",
      enabled_providers: ["kgate"],
      share: "disabled",
      autoupdate: false,
      tools: { webfetch: false, websearch: false },
      agent: { build: { steps: 7, temperature: 0.7 } },
    });
    expect(env).toMatchObject({
      HOME: "/home/agent",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
    });
    expect(opencode.skillsDir).toBe(".opencode/skills");
  });

  it("sums its step_finish accounting and survives garbage on stdout", () => {
    const step = (input: number, output: number, cost: number, read = 0) =>
      JSON.stringify({
        type: "step_finish",
        part: { tokens: { input, output, reasoning: 0, cache: { read, write: 0 } }, cost },
      });
    const tail = [
      "half a line from before the tail}",
      step(100, 10, 0.5),
      "not json",
      '{"type":"step_finish","part":{"tokens":{"input":"lots","output":null}}}',
      "[1,2]",
      step(200, 20, 0.25, 50),
      '{"type":"error","error":{"name":"APIError"}}',
    ].join("\n");
    // 100 + 200 in, 10 + 20 out, 50 read, $0.5 + $0.25; the malformed step counts as a step of zeros
    expect(opencode.report(tail).facts).toEqual({
      steps: 3,
      harnessTokens: { input: 300, output: 30, reasoning: 0, cacheRead: 50, cacheWrite: 0 },
      harnessCostUsd: 0.75,
      failure: { name: "APIError" },
    });
    expect(opencode.report("").facts).toMatchObject({ steps: 0, failure: null });
  });

  it("reports the text of its last step as its final message", () => {
    const event = (type: string, part: Record<string, unknown> = {}) => JSON.stringify({ type, part });
    const tail = [
      event("step_start"),
      event("text", { type: "text", text: "Reading the data first." }),
      event("tool_use", { tool: "bash" }),
      event("step_finish"),
      event("step_start"),
      event("text", { type: "text", text: "Wrote output/result.csv." }),
      event("text", { type: "text", text: "  " }),
      event("text", { type: "text", text: "Done." }),
      event("step_finish"),
    ].join("\n");
    // the first step's text is not the final message; blank parts are skipped
    expect(opencode.report(tail).finalMessage).toBe("Wrote output/result.csv.\nDone.");
    expect(opencode.report([event("step_start"), event("text", { text: 7 })].join("\n"))).not.toHaveProperty(
      "finalMessage",
    );
  });
});

let server: ModelServer | undefined;
let relay: Relay | undefined;
afterEach(async () => {
  await relay?.close();
  await server?.close();
  relay = server = undefined;
});

function runStandin(cwd: string, env: Record<string, string>, prompt: string) {
  const child = spawn(process.execPath, [STANDIN_CLI], { cwd, env: { PATH: process.env.PATH, ...env } });
  child.stdin.end(prompt);
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

describe("stand-in CLI through the relay (host)", () => {
  it("discovers the skill, reads it with bash, and every call is counted by the relay", async () => {
    const cwd = tempProject().root;
    mkdirSync(path.join(cwd, ".claude/skills/costing"), { recursive: true });
    writeFileSync(
      path.join(cwd, ".claude/skills/costing/SKILL.md"),
      "---\nname: costing\ndescription: rules\n---\nRATE=12\n",
    );
    server = await startModelServer(
      (req: SeenRequest) => {
        const system = String(req.body.system);
        const seen = lastToolResults(req).join("");
        if (seen.includes("RATE=12")) return { text: "rate is 12" };
        const skill = /\((\.claude\/skills\/[^)]+)\)/.exec(system)?.[1];
        return {
          toolCalls: [{ name: "bash", input: { command: `cat ${skill}` } }],
          usage: { input: 40, output: 8 },
        };
      },
      { requireKey: "sk-real" },
    );
    relay = await Relay.start({
      provider: "anthropic",
      upstream: server.anthropicUrl,
      apiKey: "sk-real",
      retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const trajectory = new TrajectoryRecorder();
    const session = relay.openSession({ tokenBudget: 10_000, maxTurns: 10, pricing: null, trajectory });
    const base = await startForwarder(relay.socketPath);
    const result = await runStandin(
      cwd,
      { ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: session.token },
      "what is the rate?",
    );
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({ type: "result", subtype: "success", num_turns: 2 });
    expect(session.usage()).toMatchObject({ modelCalls: 2, inputTokens: expect.any(Number) });
    expect(trajectory.events.filter((e) => e.type === "tool-result")[0]!.output).toContain("RATE=12");
    expect(server.requests.every((r) => r.headers["x-api-key"] === "sk-real")).toBe(true);
  });
});
