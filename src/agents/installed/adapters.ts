// The adapters of the installed CLI harnesses (Claude Code and Codex here, OpenCode in opencode.ts),
// and the registry by harness name that configurations are resolved through.
import type { HarnessAdapter } from "./harness-adapter.ts";
import { opencode } from "./opencode.ts";

function lastJsonLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      out.push(JSON.parse(trimmed) as Record<string, unknown>);
    } catch {
      // a partial first line of the tail, or plain text
    }
  }
  return out;
}

const QUIET_ENV = {
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_BUG_COMMAND: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
};

/** Claude Code: `claude -p` reading the prompt from stdin, JSON result on stdout, skills in .claude/skills. */
export const claudeCode: HarnessAdapter = {
  name: "claude-code",
  skillsDir: ".claude/skills",
  launch(i) {
    const argv = [
      "claude",
      "-p",
      "--output-format",
      "json",
      "--model",
      i.model,
      "--max-turns",
      String(i.maxTurns),
      "--dangerously-skip-permissions",
      // the provider's hosted web search (and fetches that would fail anyway) reach outside the sandbox
      "--disallowedTools",
      "WebSearch,WebFetch",
    ];
    if (i.systemPrompt.mode === "replace") argv.push("--system-prompt", i.systemPrompt.text!);
    if (i.systemPrompt.mode === "append") argv.push("--append-system-prompt", i.systemPrompt.text!);
    return {
      argv,
      env: {
        ...QUIET_ENV,
        HOME: i.home,
        ANTHROPIC_BASE_URL: i.relayUrl,
        ANTHROPIC_API_KEY: i.token,
        // every call, background ones included, goes to the configured model: accounting stays exact
        ANTHROPIC_SMALL_FAST_MODEL: i.model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: i.model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: i.model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: i.model,
        CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(i.maxOutputTokens),
      },
    };
  },
  report(tail) {
    const result = lastJsonLines(tail)
      .reverse()
      .find((e) => e.type === "result");
    if (!result) return { facts: {} };
    const facts = {
      subtype: result.subtype,
      isError: result.is_error,
      numTurns: result.num_turns,
      harnessCostUsd: result.total_cost_usd,
    };
    const said = typeof result.result === "string" ? { finalMessage: result.result } : {};
    return result.subtype === "error_max_turns"
      ? { stopReason: "max-turns", facts, ...said }
      : { facts, ...said };
  },
};

const toml = (value: string) => JSON.stringify(value);

/** Codex CLI: `codex exec` with a relay-backed model provider (Responses API), skills in .agents/skills. */
export const codex: HarnessAdapter = {
  name: "codex",
  skillsDir: ".agents/skills",
  launch(i) {
    const config: Array<[string, string]> = [
      ["model_provider", toml("kgate")],
      ["model_providers.kgate.name", toml("kgate relay")],
      ["model_providers.kgate.base_url", toml(`${i.relayUrl}/v1`)],
      ["model_providers.kgate.env_key", toml("KGATE_RELAY_TOKEN")],
      ["model_providers.kgate.wire_api", toml("responses")],
      ["check_for_update_on_startup", "false"],
      // the provider's hosted web search would reach outside the sandbox
      ["web_search", toml("disabled")],
    ];
    if (i.systemPrompt.mode === "append") config.push(["developer_instructions", toml(i.systemPrompt.text!)]);
    return {
      argv: [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--model",
        i.model,
        ...config.flatMap(([k, v]) => ["-c", `${k}=${v}`]),
        "-",
      ],
      env: { HOME: i.home, KGATE_RELAY_TOKEN: i.token },
    };
  },
  report(tail) {
    const events = lastJsonLines(tail).reverse();
    const failed = events.find((e) => e.type === "turn.failed" || e.type === "error");
    const completed = events.find((e) => e.type === "turn.completed");
    const said = events
      .map((e) => e.item as { type?: unknown; text?: unknown } | undefined)
      .find((item) => item?.type === "agent_message" && typeof item.text === "string");
    const facts = { completed: completed !== undefined, failure: failed ?? null };
    return said ? { facts, finalMessage: said.text as string } : { facts };
  },
};

export const ADAPTERS: Record<string, HarnessAdapter> = { "claude-code": claudeCode, codex, opencode };
