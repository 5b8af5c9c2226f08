// The follow-up form of the retrospective probes for installed harnesses, below the CLI: the
// declared outputs read back from a (host-folder) sandbox and capped, the final message carried,
// the probes asked through the configuration's own client (real Anthropic SDK, loopback scripted
// server), and the cases that ask nothing or fail without throwing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { harnessFollowUp, OUTPUT_CAP } from "../src/agents/installed/follow-up.ts";
import { askRetrospectiveQuestions, followUpPreamble, KEEP_QUESTION } from "../src/monitor/index.ts";
import { agentConfig, runContext } from "./support/agent-context.ts";
import { DirSandbox } from "./support/dir-sandbox.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";

const KEY = "sk-follow-up";
let server: ModelServer;
const lastText = (r: SeenRequest) => {
  const content = (r.body.messages as { content: unknown }[]).at(-1)?.content;
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");
};
beforeAll(async () => {
  server = await startModelServer(
    (r) => (lastText(r).includes("KEEP or WITHDRAW") ? { text: "WITHDRAW" } : { text: "BET" }),
    { requireKey: KEY },
  );
});
afterAll(async () => {
  await server?.close();
});

const config = (baseUrl: string) =>
  agentConfig("cc", {
    harness: "claude-code",
    provider: "anthropic",
    model: "scripted",
    baseUrl,
    apiKeyEnv: "KGATE_FOLLOW_UP_KEY",
  });
const env = { KGATE_FOLLOW_UP_KEY: KEY };
const withProbes = (sandbox: DirSandbox) => ({ ...runContext(sandbox), followUp: askRetrospectiveQuestions });

describe("the installed-harness follow-up", () => {
  it("carries the final message and the output's first 4096 bytes, marked truncated", async () => {
    // 5000 bytes written: 4096 carried (OUTPUT_CAP), 904 dropped.
    const sandbox = new DirSandbox({ "output/result.csv": "x".repeat(5000) });
    const before = server.requests.length;
    const outcome = await harnessFollowUp(
      withProbes(sandbox),
      config(server.anthropicUrl),
      env,
      "finish",
      "done",
    );
    expect(outcome).toMatchObject({ mode: "follow-up", keep: "WITHDRAW", bet: "BET", error: null });
    expect(outcome!.usage.modelCalls).toBe(2);
    const first = lastText(server.requests[before]!);
    expect(OUTPUT_CAP).toBe(4096);
    expect(first).toContain(
      `<output path="output/result.csv" truncated="yes">\n${"x".repeat(4096)}\n</output>`,
    );
    expect(first).not.toContain("x".repeat(4097));
    expect(first).toContain("<final_message>\ndone\n</final_message>");
    expect(first.endsWith(KEEP_QUESTION.prompt)).toBe(true);
  });

  it("shows an output that is not there, and a harness that reported no final message", () => {
    const text = followUpPreamble({
      instruction: "Do it.",
      finalMessage: null,
      outputs: [{ path: "output/result.csv", text: null, truncated: false }],
    });
    expect(text).toBe(
      "You worked on the task below in a session that has now ended; no tool can be run now. " +
        "The task, your final message and the outputs you wrote follow.\n\n<task>\nDo it.\n</task>\n\n" +
        "<final_message>\n(none reported)\n</final_message>\n\n" +
        '<outputs>\n<output path="output/result.csv">\n(not written)\n</output>\n</outputs>\n\n',
    );
  });

  it("asks nothing after an error or a timeout, or when no probes were asked for", async () => {
    const sandbox = new DirSandbox();
    const c = config(server.anthropicUrl);
    expect(await harnessFollowUp(withProbes(sandbox), c, env, "timeout", "x")).toBeUndefined();
    expect(await harnessFollowUp(withProbes(sandbox), c, env, "error", "x")).toBeUndefined();
    expect(await harnessFollowUp(runContext(sandbox), c, env, "finish", "x")).toBeUndefined();
  });

  it("records an unreachable model as the probes' error, never throws", async () => {
    const sandbox = new DirSandbox({ "output/result.csv": "a\n" });
    // Port 9 on loopback: nothing listens; the SDK's connection error ends up in `error`.
    const outcome = await harnessFollowUp(
      withProbes(sandbox),
      config("http://127.0.0.1:9"),
      env,
      "finish",
      "x",
    );
    expect(outcome).toMatchObject({ mode: "follow-up", keep: null, bet: null });
    // of the closed taxonomy: nothing listens, so the endpoint is unreachable (the provider's, not counted)
    expect(outcome!.error).toMatchObject({ kind: "provider-unreachable", owner: "provider" });
    expect(outcome!.error!.message).toMatch(/^probe keep: /);
  });
});
