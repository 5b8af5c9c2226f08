// Agent configurations: the committed kgate.config.json is valid; bad input is reported by file and
// field; secrets never come from the file; the digest tracks what defines a configuration.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgentConfigs, parseConfigText, resolveApiKey } from "../src/agents/load-config.ts";
import { projectPaths } from "../src/project.ts";
import { formatProblem } from "../src/task/index.ts";
import { tempProject, writeJson } from "./support/project.ts";

const FILE = "kgate.config.json";
const parse = (value: unknown) => parseConfigText(FILE, JSON.stringify(value));
const minimal = { harness: "builtin", provider: "anthropic", model: "claude-x" };

describe("kgate.config.json", () => {
  it("the committed example loads without problems, with frontier, mid and local configurations", () => {
    const result = loadAgentConfigs(projectPaths(path.resolve(import.meta.dirname, "..")));
    expect(result.errors.map(formatProblem)).toEqual([]);
    expect(result.warnings).toEqual([]);
    const byName = Object.fromEntries(result.agents.map((a) => [a.name, a]));
    expect(byName.frontier).toMatchObject({
      harness: "claude-code",
      provider: "anthropic",
      apiKeyEnv: "ANTHROPIC_API_KEY",
    });
    // the paper's mid configuration: Qwen in OpenCode; the same model in the built-in loop beside it
    expect(byName.mid).toMatchObject({
      harness: "opencode",
      provider: "openai-compatible",
      model: "qwen3.6-plus",
    });
    expect(byName["mid-builtin"]).toMatchObject({
      harness: "builtin",
      provider: "openai-compatible",
      model: "qwen3.6-plus",
    });
    expect(byName.mid!.baseUrl).toBe(byName["mid-builtin"]!.baseUrl);
    expect(byName.local).toMatchObject({ apiKeyEnv: null, baseUrl: "http://localhost:11434/v1" });
    expect(new Set(result.agents.map((a) => a.digest)).size).toBe(result.agents.length);
  });

  it("resolves defaults: base URL and key variable per provider, limits, harness revision", () => {
    const { agents, errors } = parse({
      agents: { a: minimal, o: { ...minimal, provider: "openai", model: "gpt" } },
    });
    expect(errors).toEqual([]);
    expect(agents[0]).toMatchObject({
      baseUrl: "https://api.anthropic.com",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      maxTurns: 50,
      harnessRevision: "builtin@2",
      pricing: null,
      systemPrompt: { mode: "default" },
    });
    expect(agents[1]).toMatchObject({ baseUrl: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" });
  });

  it("digests what defines a configuration: not its name or description, but its model and limits", () => {
    const digest = (entry: Record<string, unknown>, name = "a") =>
      parse({ agents: { [name]: entry } }).agents[0]!.digest;
    const base = digest(minimal);
    expect(digest(minimal, "b")).toBe(base);
    expect(digest({ ...minimal, description: "cosmetic" })).toBe(base);
    expect(digest({ ...minimal, maxTurns: 50 })).toBe(base);
    expect(digest({ ...minimal, model: "claude-y" })).not.toBe(base);
    expect(digest({ ...minimal, maxTurns: 10 })).not.toBe(base);
    expect(digest({ ...minimal, harness: "claude-code" })).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a key in the file, naming the field", () => {
    const result = parse({ agents: { a: { ...minimal, apiKey: "sk-ant-secret" } } });
    expect(result.agents).toEqual([]);
    expect(result.errors.map(formatProblem)).toEqual([
      "kgate.config.json: agents.a.apiKey: secrets never go in the config file: name the environment variable in apiKeyEnv",
    ]);
    const asEnv = parse({ agents: { a: { ...minimal, apiKeyEnv: "sk-ant-api03-abc" } } });
    expect(asEnv.errors.map(formatProblem)[0]).toMatch(
      /agents\.a\.apiKeyEnv: must name an environment variable/,
    );
  });

  it("reports each rule violation with its field", () => {
    const result = parse({
      agents: {
        compat: { ...minimal, provider: "openai-compatible" },
        cc: { ...minimal, harness: "claude-code", provider: "openai" },
        bad: { ...minimal, maxTurns: 0, systemPrompt: { mode: "replace" } },
        oc: { ...minimal, harness: "opencode", systemPrompt: { mode: "append", text: "x" } },
        "Bad Name": minimal,
      },
    });
    const messages = result.errors.map(formatProblem);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/agents\.compat\.baseUrl: required for provider openai-compatible/),
        expect.stringMatching(/agents\.cc\.provider: harness claude-code speaks the Anthropic Messages API/),
        expect.stringMatching(/agents\.bad\.maxTurns: /),
        expect.stringMatching(/agents\.bad\.systemPrompt\.text: `text` is required/),
        expect.stringMatching(/agents\.oc\.provider: harness opencode is wired to Chat Completions/),
        expect.stringMatching(
          /agents\.oc\.systemPrompt\.mode: harness opencode supports the system prompt modes default/,
        ),
        expect.stringMatching(/agents\.Bad Name/),
      ]),
    );
  });

  it("rejects the built-in agent names and warns about tools on installed harnesses", () => {
    const result = parse({
      agents: { oracle: minimal, cc: { ...minimal, harness: "claude-code", tools: {} } },
    });
    expect(result.errors.map(formatProblem)).toEqual([
      'kgate.config.json: agents.oracle: "oracle" is a built-in agent; choose another name',
    ]);
    expect(result.warnings.map(formatProblem)).toEqual([
      "kgate.config.json: agents.cc.tools: ignored: harness claude-code brings its own tools",
    ]);
  });

  it("reports invalid JSON with line and column, and a missing file as no agents", () => {
    const paths = tempProject();
    expect(loadAgentConfigs(paths)).toMatchObject({ exists: false, agents: [], errors: [] });
    writeFileSync(paths.config, '{\n  "agents": {\n    oops\n}\n');
    const result = loadAgentConfigs(paths);
    expect(formatProblem(result.errors[0]!)).toMatch(
      /^kgate\.config\.json: line 3, column \d+: invalid JSON/,
    );
    writeJson(paths.config, { agents: { a: minimal } });
    expect(loadAgentConfigs(paths).agents).toHaveLength(1);
  });

  it("reads keys only from the environment", () => {
    const [a] = parse({ agents: { a: { ...minimal, apiKeyEnv: "MY_KEY" } } }).agents;
    expect(resolveApiKey(a!, { MY_KEY: "sk-1" })).toBe("sk-1");
    expect(resolveApiKey(a!, {})).toBeUndefined();
    expect(resolveApiKey(a!, { MY_KEY: "" })).toBeUndefined();
    expect(resolveApiKey({ apiKeyEnv: null }, {})).toBeNull();
  });
});
