// Benchmark: what a live triage task unit pays over a bare trial. taskLiveRunner runs each step through
// the triage session's one sandbox runner and trial engine (until issue 41 item 4 it opened a runner
// per step, sweeping orphans and checking the image each time: 1.2-1.5x); the baseline is the same
// trial (same budgeted configuration, same scripted agent on the loopback model server, real
// containers) run straight through that engine. Rounds alternate the two; the figure is the median
// ratio. Needs the local Docker daemon.
//   npm run bench triage-live      or      npx tsx bench/triage-live.ts
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { AgentConfig, createConfiguredAgent, resolveAgentConfig } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { loadValidTask, scaffoldTask } from "../src/task/index.ts";
import { budgetedConfig, taskLiveRunner, unitsFromTasks } from "../src/triage/index.ts";
import { agentInfoOf, openSandboxRunner, TrialEngine } from "../src/trial/index.ts";
import { type ScriptStep, type SeenRequest, startModelServer } from "../test/support/model-server.ts";

const ROUNDS = Number(process.env.KGATE_BENCH_ROUNDS ?? 7);
const LIMIT = 100_000;
const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";

/** Writes the right file, then finishes: two turns. */
function script(request: SeenRequest): ScriptStep {
  const messages = request.body.messages as unknown[];
  const usage = { input: 10, output: 150 };
  if (messages.length === 1)
    return {
      toolCalls: [{ name: "write_file", input: { path: "output/result.csv", content: CORRECT } }],
      usage,
    };
  return { toolCalls: [{ name: "finish", input: { summary: "done" } }], usage };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function bench(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-triage-live-"));
  const server = await startModelServer(script);
  process.env.KGATE_BENCH_TRIAGE_KEY = "sk-bench";
  try {
    const paths = projectPaths(root);
    scaffoldTask(paths, { id: "bench", gate: "convention" });
    appendFileSync(path.join(paths.tasks, "bench", "instruction.md"), "\n(batch: bench)\n");
    const task = loadValidTask(paths, "bench");
    const unit = unitsFromTasks([task]).units[0]!;
    const config = resolveAgentConfig(
      "bench",
      AgentConfig.parse({
        harness: "builtin",
        provider: "anthropic",
        model: "bench-scripted",
        baseUrl: server.anthropicUrl,
        apiKeyEnv: "KGATE_BENCH_TRIAGE_KEY",
        retry: { maxRetries: 0 },
      }),
    );
    const runDir = path.join(paths.runs, "bench");
    // the baseline: the budgeted configuration's agent, one runner for every round
    const agent = createConfiguredAgent(paths, budgetedConfig(config, LIMIT, "live"));
    const shared = await openSandboxRunner({ paths, agents: [agent] });
    const engine = new TrialEngine({
      runId: "bench/shared",
      runDir: path.join(runDir, "shared"),
      runner: shared.runner,
      concurrency: 1,
    });
    const live = taskLiveRunner(
      {
        paths,
        tasks: new Map([[task.id, task]]),
        config,
        runId: "bench",
        runDir,
        log: () => {},
        sandbox: shared,
        engine,
      },
      "live",
    );
    const sharedMs: number[] = [];
    const ownMs: number[] = [];
    try {
      // round 0 warms both paths up and is not counted
      for (let i = 0; i <= ROUNDS; i++) {
        let t0 = performance.now();
        const record = await engine.run({ task, condition: "+A", agent: agentInfoOf(agent), index: i });
        const a = performance.now() - t0;
        if (record?.verdict.status !== "pass")
          throw new Error(`baseline trial ${i}: ${record?.verdict.status}`);
        t0 = performance.now();
        // a new plan key each round: nothing to find, the trial runs
        const outcome = await live(unit, LIMIT, { key: `r=0 alpha=${i} framing=neutral`, step: 0 });
        const b = performance.now() - t0;
        if (!outcome.correct) throw new Error(`live trial ${i}: ${outcome.reply}`);
        if (i > 0) {
          sharedMs.push(a);
          ownMs.push(b);
        }
      }
    } finally {
      await shared.close();
    }
    const ratios = sharedMs.map((a, i) => ownMs[i]! / a);
    console.log(`one trial (2 scripted turns, real container), median of ${ROUNDS} alternating rounds`);
    console.log("| path | ms |");
    console.log("|---|---|");
    console.log(`| one runner for all trials (baseline) | ${median(sharedMs).toFixed(0)} |`);
    console.log(`| taskLiveRunner over the session's runner | ${median(ownMs).toFixed(0)} |`);
    console.log(`median per-round ratio (live step / bare trial): ${median(ratios).toFixed(3)}`);
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();
