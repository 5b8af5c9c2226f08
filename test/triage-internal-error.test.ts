// kgate triage keeps an internal error as what it is (its type and stack), instead of a usage error
// (exit 2, no stack) that tells the user to fix an input which is not at fault (issue 41 item 4).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { run as triage } from "../src/commands/triage.ts";
import { UsageError } from "../src/errors.ts";
import { tempProject, writeJson } from "./support/project.ts";

function project() {
  const paths = tempProject();
  mkdirSync(path.join(paths.root, "items"));
  const item = { id: "a", prompt: "Compute 17 + 25.", answer: 42, checker: "number" };
  writeFileSync(path.join(paths.root, "items", "p.jsonl"), `${JSON.stringify(item)}\n`);
  writeJson(paths.config, {
    agents: {
      planner: {
        harness: "builtin",
        provider: "anthropic",
        model: "scripted-planner",
        baseUrl: "http://127.0.0.1:9",
        apiKeyEnv: "KGATE_TRIAGE_INTERNAL_TEST_KEY",
      },
    },
  });
  return { paths, stdout: new PassThrough(), stderr: new PassThrough() };
}

const OPTIONS = { agent: "planner", alpha: ["1"], unitCap: "1000", planTokens: "500", concurrency: 1 };

describe("kgate triage's errors", () => {
  it("an internal error (here a TypeError from a caller's malformed options) keeps its type and stack", async () => {
    // `framing` must be strings; a number makes the settings code throw a TypeError (f.split)
    const bad = { ...OPTIONS, framing: [5 as unknown as string] };
    const err = await triage(project(), "p", bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err).not.toBeInstanceOf(UsageError);
    expect((err as Error).stack).toMatch(/triage\.ts/);
  });

  it("a user's input error is still a usage error naming the fix", async () => {
    const err = await triage(project(), "p", { ...OPTIONS, framing: ["calm"] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('--framing takes neutral, agent or exam (got "calm")');
  });
});
