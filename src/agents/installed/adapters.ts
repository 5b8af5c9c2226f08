// How each installed CLI harness is launched headless inside the sandbox, pointed at the relay, where
// it discovers skills, and how its own report of the ending is read.
import type { StopReason } from "../../model/index.ts";
import type { SystemPromptPolicy } from "../config.ts";
import { opencode } from "./opencode.ts";

export interface LaunchInput {
  model: string;
  maxTurns: number;
  maxOutputTokens: number;
  /** The configuration's sampling temperature, for harnesses that take one (OpenCode). */
  temperature?: number;
  systemPrompt: SystemPromptPolicy;
  /** The relay as the harness reaches it inside the container, e.g. http://127.0.0.1:4100. */
  relayUrl: string;
  /** The trial's relay token, sent as the harness's API key. */
  token: string;
  /** The agent user's home inside the sandbox (writable). */
  home: string;
}

export interface HarnessLaunch {
  argv: string[];
  env: Record<string, string>;
}

export interface HarnessReport {
  /** A stop reason the harness itself reported (e.g. its own turn limit). */
  stopReason?: StopReason;
  /** Facts for the trajectory (subtype, turns, the harness's own cost estimate). */
  facts: Record<string, unknown>;
  /** The harness's final message to the user (Claude Code's `result`), for the monitoring follow-up. */
  finalMessage?: string;
}

export interface HarnessAdapter {
  readonly name: string;
  /** Folder (relative to the work directory) where the harness discovers skills; null if none. */
  readonly skillsDir: string | null;
  /** The instruction goes on stdin, byte-identical; argv and env say everything else. */
  launch(input: LaunchInput): HarnessLaunch;
  /** Reads the harness's final report from the tail of its stdout. */
  report(stdoutTail: string): HarnessReport;
}

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
