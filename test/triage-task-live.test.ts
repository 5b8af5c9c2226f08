// The configuration a live or re-solved task unit runs with (src/triage/task-live.ts): the token
// budget and per-call cap from a_i, the budget sentence after whatever system prompt the
// configuration has (never in the instruction), a digest of its own, the exact sentence docs quote.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  AgentConfig,
  type AgentConfigInput,
  RelaySettings,
  resolveAgentConfig,
} from "../src/agents/index.ts";
import { budgetedConfig, canStateBudget, planFolder, taskBudgetSentence } from "../src/triage/index.ts";

const base = (over: Partial<AgentConfigInput> = {}) =>
  resolveAgentConfig(
    "frontier",
    AgentConfig.parse({ harness: "builtin", provider: "anthropic", model: "m", ...over }),
  );

/** The configuration as kgate.config.json would hold it, for the schema to judge. */
const asWritten = (c: ReturnType<typeof base>) => {
  // relay settings come from the file's `relay` section, not from the agent's entry
  const { name: _n, digest: _d, harnessRevision: _h, relay: _r, ...rest } = c;
  return rest;
};

describe("budgetedConfig", () => {
  it("sets the output-token budget to a_i, keeps the all-token budget, and caps one call's max_tokens at it", () => {
    const config = base();
    // defaults: tokenBudget 2,000,000, maxOutputTokens 8192, no output-token budget
    const live = budgetedConfig(config, 462, "live");
    expect([live.outputTokenBudget, live.tokenBudget, live.maxOutputTokens]).toEqual([462, 2_000_000, 462]);
    // a_i above the per-call cap leaves the cap: min(8192, 10000) = 8192
    expect(budgetedConfig(config, 10_000, "live").maxOutputTokens).toBe(8192);
    // live E states nothing: the system prompt policy is the configuration's own
    expect(live.systemPrompt).toEqual(config.systemPrompt);
    expect(live.name).toBe("frontier");
  });

  it("keeps the file's relay settings, outside the digest", () => {
    const relay = RelaySettings.parse({ maxBodyBytes: 1024 });
    const withRelay = resolveAgentConfig("frontier", AgentConfig.parse(asWritten(base())), relay);
    const budgeted = budgetedConfig(withRelay, 462, "live");
    expect(budgeted.relay.maxBodyBytes).toBe(1024);
    // the same change of a configuration with default relay settings has the same digest
    expect(budgeted.digest).toBe(budgetedConfig(base(), 462, "live").digest);
  });

  it("puts the sentence after the configuration's system prompt, whatever its mode", () => {
    const s = "You have a budget of 462 tokens for this task.";
    expect(taskBudgetSentence(462)).toBe(s);
    const policy = (p: AgentConfigInput["systemPrompt"]) =>
      budgetedConfig(base({ systemPrompt: p }), 462, "resolve").systemPrompt;
    expect(policy({ mode: "default" })).toEqual({ mode: "append", text: s });
    expect(policy({ mode: "none" })).toEqual({ mode: "replace", text: s });
    expect(policy({ mode: "append", text: "Be brief." })).toEqual({
      mode: "append",
      text: `Be brief.\n\n${s}`,
    });
    expect(policy({ mode: "replace", text: "Own." })).toEqual({ mode: "replace", text: `Own.\n\n${s}` });
  });

  it("gives each changed configuration its own digest, the same for the same change", () => {
    const config = base();
    const digests = [
      config.digest,
      budgetedConfig(config, 462, "live").digest,
      budgetedConfig(config, 463, "live").digest,
      budgetedConfig(config, 462, "resolve").digest,
    ];
    expect(new Set(digests).size).toBe(4);
    expect(budgetedConfig(config, 462, "resolve").digest).toBe(digests[3]);
  });

  it("stays a valid configuration for every harness whose system prompt can carry the sentence", () => {
    const cases: AgentConfigInput[] = [
      { harness: "builtin", provider: "anthropic", model: "m", systemPrompt: { mode: "none" } },
      { harness: "claude-code", provider: "anthropic", model: "m" },
      {
        harness: "claude-code",
        provider: "anthropic",
        model: "m",
        systemPrompt: { mode: "replace", text: "x" },
      },
      { harness: "codex", provider: "openai", model: "m" },
      { harness: "codex", provider: "openai", model: "m", systemPrompt: { mode: "append", text: "x" } },
    ];
    for (const c of cases) {
      const config = resolveAgentConfig("a", AgentConfig.parse(c));
      expect(canStateBudget(config)).toBe(true);
      const parsed = AgentConfig.safeParse(asWritten(budgetedConfig(config, 100, "resolve")));
      expect(parsed.success, `${c.harness} ${c.systemPrompt?.mode ?? "default"}`).toBe(true);
    }
    expect(
      canStateBudget(
        resolveAgentConfig("o", AgentConfig.parse({ harness: "opencode", provider: "openai", model: "m" })),
      ),
    ).toBe(false);
  });
});

describe("the re-solve sentence in docs/triage.md", () => {
  it("is quoted exactly as kgate writes it", () => {
    const docs = readFileSync(new URL("../docs/triage.md", import.meta.url), "utf8");
    expect(docs).toContain(`\`\`\`text\n${taskBudgetSentence(462)}\n\`\`\``);
  });
});

describe("planFolder", () => {
  it("writes a plan key as a folder name", () => {
    expect(planFolder("r=0.5 alpha=0.75 framing=neutral")).toBe("r0.5-alpha0.75-neutral");
    expect(planFolder("r=0 alpha=1 framing=exam")).toBe("r0-alpha1-exam");
  });
});
