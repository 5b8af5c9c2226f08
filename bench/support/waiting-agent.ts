// Benchmark support: a built-in-loop agent against a scripted loopback model that answers every turn
// after a delay (four bash calls, then finish), in a scratch project with one scaffolded task: trials
// that wait on the model, so throughput shows whether the engine serialises waiting.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AgentConfig, BuiltinAgent, resolveAgentConfig } from "../../src/agents/index.ts";
import { type ProjectPaths, projectPaths } from "../../src/project.ts";
import { type LoadedTask, loadValidTask, scaffoldTask } from "../../src/task/index.ts";
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
