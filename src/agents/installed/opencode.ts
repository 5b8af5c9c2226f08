// OpenCode (`opencode run`) as an installed harness: an OpenAI-compatible provider whose base URL is
// the relay, given inline (OPENCODE_CONFIG_CONTENT) so no file of the project or home is trusted;
// web tools off, permissions granted (the container is the sandbox), skills in .opencode/skills.
import type { HarnessAdapter, HarnessReport } from "./harness-adapter.ts";

/** The provider id kgate registers in OpenCode's configuration; models are `kgate/<model>`. */
export const OPENCODE_PROVIDER = "kgate";

function jsonLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      const value = JSON.parse(trimmed) as unknown;
      if (value !== null && typeof value === "object" && !Array.isArray(value))
        out.push(value as Record<string, unknown>);
    } catch {
      // a partial first line of the tail, or plain text
    }
  }
  return out;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * Sums OpenCode's own per-step accounting (`step_finish` events of `--format json`); its final
 * message is the text of its last step (the `text` events after the last `step_start`).
 */
export function opencodeReport(tail: string): HarnessReport {
  const events = jsonLines(tail);
  let lastStepText: string[] = [];
  let steps = 0;
  const tokens = { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
  let cost = 0;
  let error: unknown = null;
  for (const e of events) {
    if (e.type === "error") error = e.error ?? e;
    if (e.type === "step_start") lastStepText = [];
    const text = (e.part as { text?: unknown } | undefined)?.text;
    if (e.type === "text" && typeof text === "string" && text.trim()) lastStepText.push(text.trim());
    if (e.type !== "step_finish") continue;
    const part = (e.part ?? {}) as { tokens?: Record<string, unknown>; cost?: unknown };
    const t = part.tokens ?? {};
    const cache = (t.cache ?? {}) as Record<string, unknown>;
    steps += 1;
    tokens.input += num(t.input);
    tokens.output += num(t.output);
    tokens.reasoning += num(t.reasoning);
    tokens.cacheRead += num(cache.read);
    tokens.cacheWrite += num(cache.write);
    cost += num(part.cost);
  }
  const facts = { steps, harnessTokens: tokens, harnessCostUsd: cost, failure: error };
  return lastStepText.length > 0 ? { facts, finalMessage: lastStepText.join("\n") } : { facts };
}

export const opencode: HarnessAdapter = {
  name: "opencode",
  skillsDir: ".opencode/skills",
  launch(i) {
    const config = {
      $schema: "https://opencode.ai/config.json",
      model: `${OPENCODE_PROVIDER}/${i.model}`,
      small_model: `${OPENCODE_PROVIDER}/${i.model}`,
      provider: {
        [OPENCODE_PROVIDER]: {
          npm: "@ai-sdk/openai-compatible",
          name: "kgate relay",
          options: { baseURL: `${i.relayUrl}/v1`, apiKey: i.token },
          models: { [i.model]: { name: i.model, limit: { context: 200_000, output: i.maxOutputTokens } } },
        },
      },
      enabled_providers: [OPENCODE_PROVIDER],
      share: "disabled",
      autoupdate: false,
      // the container is the sandbox: nothing to ask; web tools would reach around it
      permission: { edit: "allow", bash: "allow", webfetch: "deny", external_directory: "allow" },
      tools: { webfetch: false, websearch: false },
      agent: {
        build: { steps: i.maxTurns, ...(i.temperature === undefined ? {} : { temperature: i.temperature }) },
      },
    };
    return {
      argv: ["opencode", "run", "--format", "json", "--model", `${OPENCODE_PROVIDER}/${i.model}`],
      env: {
        HOME: i.home,
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_SHARE: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      },
    };
  },
  report: opencodeReport,
};
