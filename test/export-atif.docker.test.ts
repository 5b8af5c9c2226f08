// `kgate export trajectories --format atif` end to end: a real run in the sandbox (the built-in
// harness through the real Anthropic SDK against the loopback model server, then the oracle), its
// records and trajectories exported, every file valid for the ATIF models of test/fixtures/atif,
// with the verdict and the cost the record holds.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { atifProblems } from "./support/atif.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { startModelServer } from "./support/model-server.ts";
import { writeJson } from "./support/project.ts";
import { demoTask } from "./support/sandbox.ts";

const KEY_ENV = "KGATE_ATIF_TEST_KEY";

describe("kgate export trajectories --format atif on a real run", () => {
  it("writes each trial's steps, tokens, cost and verdict as ATIF", { timeout: 120_000 }, async () => {
    const server = await startModelServer([
      {
        text: "Writing the result.",
        toolCalls: [
          { name: "bash", input: { command: "mkdir -p output && echo item,value > output/result.csv" } },
        ],
        usage: { input: 1000, output: 50, cacheRead: 200, cacheWrite: 100 },
      },
      {
        text: "done",
        toolCalls: [{ name: "finish", input: {} }],
        usage: { input: 1200, output: 20, cacheRead: 300 },
      },
    ]);
    process.env[KEY_ENV] = "sk-atif";
    try {
      const { paths } = demoTask();
      writeJson(paths.config, {
        agents: {
          scripted: {
            harness: "builtin",
            provider: "anthropic",
            model: "claude-scripted",
            baseUrl: server.anthropicUrl,
            apiKeyEnv: KEY_ENV,
            pricing: { inputPerMTok: 5, outputPerMTok: 25, cacheReadPerMTok: 0.5, cacheWritePerMTok: 6.25 },
          },
        },
      });
      const root = ["--root", paths.root];
      const ran = await kgateInProcess([
        ...root,
        "run",
        "demo",
        "--agent",
        "scripted",
        "--condition",
        "-A",
        "--run-id",
        "r",
      ]);
      expect(ran.code, ran.stderr).toBe(0);
      const oracle = await kgateInProcess([
        ...root,
        "run",
        "demo",
        "--agent",
        "oracle",
        "--condition",
        "+A",
        "--run-id",
        "r",
      ]);
      expect(oracle.code, oracle.stderr).toBe(0);

      const exported = await kgateInProcess([
        ...root,
        "export",
        "trajectories",
        "r",
        "--format",
        "atif",
        "--json",
      ]);
      expect(exported.code, exported.stderr).toBe(0);
      const { format, written } = JSON.parse(exported.stdout) as {
        format: string;
        written: Array<{ trialId: string; file: string }>;
      };
      expect(format).toBe("ATIF-v1.6");
      expect(written.map((w) => w.trialId)).toEqual(["demo.without-A.scripted.0", "demo.with-A.oracle.0"]);
      const [scripted, solved] = written.map((w) => JSON.parse(readFileSync(w.file, "utf8")));
      for (const doc of [scripted, solved]) expect(atifProblems(doc)).toEqual([]);
      expect(path.dirname(written[0]!.file)).toBe(path.join(paths.runs, "r", "atif"));

      // The instruction (unchanged since the run), then the two model turns.
      const instruction = readFileSync(path.join(paths.tasks, "demo", "instruction.md"), "utf8");
      expect(scripted.steps.map((s: { source: string }) => s.source)).toEqual(["user", "agent", "agent"]);
      expect(scripted.steps[0].message).toBe(instruction);
      expect(scripted.steps[1]).toMatchObject({
        message: "Writing the result.",
        model_name: "claude-scripted",
        tool_calls: [
          { function_name: "bash", arguments: { command: expect.stringContaining("output/result.csv") } },
        ],
        observation: { results: [{ source_call_id: scripted.steps[1].tool_calls[0].tool_call_id }] },
        // 1,000 uncached + 200 cache read + 100 cache write.
        metrics: { prompt_tokens: 1300, completion_tokens: 50, cached_tokens: 200 },
      });
      // Cost: 2,200 in x $5/M = 0.011; 70 out x $25/M = 0.00175; 500 cache read x $0.5/M = 0.00025;
      // 100 cache write x $6.25/M = 0.000625; together $0.013625.
      expect(scripted.final_metrics.total_cost_usd).toBeCloseTo(0.013625, 9);
      expect(scripted.final_metrics).toMatchObject({
        total_prompt_tokens: 2800,
        total_completion_tokens: 70,
      });
      // -A, the noop-like reply writes a header only: the verdict the record holds, failed.
      expect(scripted.extra.kgate.verdict.status).toBe("fail");
      expect(scripted.extra.kgate.condition).toBe("-A");

      expect(solved.agent.name).toBe("oracle");
      expect(solved.extra.kgate.verdict.status).toBe("pass");
      expect(solved.notes).toMatch(/^kgate trial demo\.with-A\.oracle\.0: pass \(reward 1, score 1\.00\)/);
      expect(solved.steps.at(-1).tool_calls[0].function_name).toBe("bash");
    } finally {
      delete process.env[KEY_ENV];
      await server.close();
    }
  });
});
