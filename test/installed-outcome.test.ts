// Whose failure a dead installed harness is (issue 29, item 4): the harness's fate first (a broken
// channel, a kill after the agent acted), then the relay's own upstream failure, then the provider's
// refusal of a request's content (the agent's once it acted), then the plain exit.
import { describe, expect, it } from "vitest";
import { type HarnessDeath, harnessDeathError } from "../src/agents/installed/outcome.ts";
import { FAILURE_KINDS, trialError } from "../src/record/index.ts";

const death = (over: Partial<HarnessDeath>): HarnessDeath => ({
  harness: "claude-code",
  exitCode: 1,
  stderr: "boom",
  turns: 1,
  brokenChannel: null,
  infraFailure: null,
  rejection: null,
  ...over,
});
const rejected = trialError("provider-rejected", '{"error":{"message":"temperature: range: 0..1"}}');
const outage = trialError("provider-outage", "upstream answered 500 (after 3 attempts)");

describe("harnessDeathError", () => {
  it("a kill after the agent acted is the agent's, whatever the relay saw (the planted 400 of round 2)", () => {
    // 137 = 128 + SIGKILL
    const error = harnessDeathError(death({ exitCode: 137, rejection: rejected, infraFailure: outage }));
    expect(error).toMatchObject({ kind: "agent-exit", owner: "agent" });
    expect(FAILURE_KINDS[error.kind].counted).toBe(true);
  });

  it("a 4xx on the content after the agent acted is the agent's; before it acted, the configuration's", () => {
    const after = harnessDeathError(death({ rejection: rejected }));
    expect(after.kind).toBe("agent-exit");
    expect(after.message).toBe(
      `claude-code exited with 1: boom; the provider had refused a request of the agent's conversation: ${rejected.message}`,
    );
    // turns 0: no command of the agent ran, the request was the harness's and the configuration's
    expect(harnessDeathError(death({ turns: 0, rejection: rejected }))).toBe(rejected);
    const full = trialError("context-overflow", "prompt is too long");
    expect(harnessDeathError(death({ rejection: full }))).toBe(full);
  });

  it("the relay's own upstream failure stays infrastructure when the harness exits by itself", () => {
    expect(harnessDeathError(death({ infraFailure: outage }))).toBe(outage);
    expect(harnessDeathError(death({ turns: 0, infraFailure: outage, exitCode: 137 }))).toBe(outage);
  });

  it("a broken channel is the agent's; a plain exit is agent-exit after acting, harness-start before", () => {
    expect(
      harnessDeathError(death({ brokenChannel: "a frame of 4294967295 bytes", infraFailure: outage })),
    ).toMatchObject({
      kind: "agent-exit",
      message: "a frame of 4294967295 bytes",
    });
    expect(harnessDeathError(death({})).kind).toBe("agent-exit");
    expect(harnessDeathError(death({ turns: 0 }))).toMatchObject({
      kind: "harness-start",
      message: "claude-code exited with 1: boom",
    });
  });
});
