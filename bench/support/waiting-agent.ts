// Benchmark support: a built-in-loop agent against a scripted loopback model that answers every turn
// after a delay (four bash calls, then finish), in a scratch project with one scaffolded task: trials
// that wait on the model, so throughput shows whether the engine serialises waiting; and `n` of them
// timed through one engine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AgentConfig, BuiltinAgent, resolveAgentConfig } from "../../src/agents/index.ts";
import { type ProjectPaths, projectPaths } from "../../src/project.ts";
import type { TrialRecord } from "../../src/record/index.ts";
import { type LoadedTask, loadValidTask, scaffoldTask } from "../../src/task/index.ts";
import { agentInfoOf, TrialEngine, type TrialRunner } from "../../src/trial/index.ts";
import { startModelServer } from "../../test/support/model-server.ts";

export interface WaitingAgent {
  paths: ProjectPaths;
  task: LoadedTask;
  agent: BuiltinAgent;
  close(): Promise<void>;
}

/** `turns` model turns a trial, each answered after `delayMs`. */
export async function waitingAgent(name: string, turns: number, delayMs: number): Promise<WaitingAgent> {
  const root = mkdtempSync(path.join(tmpdir(), `kgate-bench-${name}-`));
  const paths = projectPaths(root);
  scaffoldTask(paths, { id: "wait", gate: "convention" });
  const server = await startModelServer((request) => {
    const turn = (request.body.messages as Array<{ role: string }>).filter(
      (m) => m.role === "assistant",
    ).length;
    return turn < turns - 1
      ? { toolCalls: [{ name: "bash", input: { command: "true" } }], delayMs }
      : { toolCalls: [{ name: "finish", input: { summary: "done" } }], delayMs };
  });
  const agent = new BuiltinAgent(
    resolveAgentConfig(
      "scripted",
      AgentConfig.parse({
        harness: "builtin",
        provider: "anthropic",
        model: "claude-scripted",
        baseUrl: server.anthropicUrl,
        apiKeyEnv: "KGATE_BENCH_KEY",
        maxTurns: turns + 2,
      }),
    ),
    { env: { KGATE_BENCH_KEY: "sk-bench" } },
  );
  return {
    paths,
    task: loadValidTask(paths, "wait"),
    agent,
    async close() {
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** `trials` trials of the waiting task through one engine at `concurrency`: the records and the wall time; any failed trial throws. */
export async function timedTrials(
  w: WaitingAgent,
  o: { runId: string; concurrency: number; trials: number; runner: TrialRunner },
): Promise<{ records: TrialRecord[]; wallMs: number }> {
  const engine = new TrialEngine({
    runId: o.runId,
    runDir: path.join(w.paths.runs, o.runId),
    concurrency: o.concurrency,
    runner: o.runner,
  });
  const info = agentInfoOf(w.agent);
  const started = performance.now();
  const records = await engine.runAll(
    Array.from({ length: o.trials }, (_, index) => ({
      task: w.task,
      condition: "+A" as const,
      agent: info,
      index,
    })),
  );
  const wallMs = performance.now() - started;
  const bad = records.filter((r) => r.error || r.stopReason !== "finish");
  if (bad.length > 0) throw new Error(`trial failed: ${JSON.stringify(bad[0]?.error ?? bad[0]?.stopReason)}`);
  return { records, wallMs };
}
