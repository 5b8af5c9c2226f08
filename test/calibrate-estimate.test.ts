// `kgate calibrate --estimate`: cost per cell and in total from earlier records of the same agent
// configuration digest, task digest and condition, else the token caps at the prices (an upper bound);
// no trial runs and no run directory is made. Earlier records are constructed with known costs.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgentConfigs } from "../src/agents/index.ts";
import { buildPlan, CalibrationConfig } from "../src/calibrate/index.ts";
import { appendTrialRecord } from "../src/trial/index.ts";
import { agentInfo, jobFor, recordFor, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

const CELLS = [
  { name: "frontier+A", agent: "frontier", condition: "+A", require: ">= 0.6" },
  { name: "mid+A", agent: "mid", condition: "+A", require: "<= 0.4" },
] as const;

describe("calibrate --estimate", () => {
  it("prices cells from earlier records of the same configuration, else from the caps, and runs nothing", () => {
    const paths = tempProject();
    const tasks = scaffoldTasks(paths, ["alpha"]);
    const agent = (provider: string) => ({
      harness: "builtin",
      provider,
      model: `${provider}-model`,
      pricing: { inputPerMTok: 1, outputPerMTok: 2 },
    });
    writeFileSync(
      paths.config,
      JSON.stringify({
        agents: { frontier: agent("anthropic"), mid: agent("openai") },
        calibration: { n: 4, cells: CELLS },
      }),
    );
    const digests = new Map(loadAgentConfigs(paths).agents.map((a) => [a.name, a.digest]));
    const plan = buildPlan({
      runId: "old",
      config: CalibrationConfig.parse({ n: 4, cells: [...CELLS] }),
      tasks,
      resolveAgent: (name) => agentInfo(name, "local", digests.get(name)!),
    });
    const taskMap = new Map(tasks.map((t) => [t.id, t]));
    const old = path.join(paths.runs, "old");
    mkdirSync(old, { recursive: true });
    const frontier = plan.cells.find((c) => c.label === "frontier+A")!;
    [0.1, 0.2, 0.3].forEach((costUsd, i) => {
      appendTrialRecord(old, recordFor(jobFor(plan, taskMap, frontier, i), { outcome: "pass", costUsd }));
    });
    const r = kgate(["--root", paths.root, "calibrate", "--estimate", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const e = JSON.parse(r.stdout);
    const [f, m] = e.cells;
    // frontier+A: 3 records at $0.1, 0.2, 0.3: 4 trials x mean 0.2 = 0.8, range 4 x 0.1 to 4 x 0.3.
    expect(f).toMatchObject({ cell: "frontier+A", source: "records", records: 3, trials: 4 });
    expect(f.costUsd.expected).toBeCloseTo(0.8, 10);
    expect(f.costUsd.low).toBeCloseTo(0.4, 10);
    expect(f.costUsd.high).toBeCloseTo(1.2, 10);
    // mid+A: no record. Caps: tokens min(2,000,000, task maxTokens 500,000) = 500,000; output at most
    // 50 turns x 8192 = 409,600: 409,600 x $2/M + 90,400 x $1/M = 0.8192 + 0.0904 = 0.9096 a trial, x 4.
    expect(m).toMatchObject({ cell: "mid+A", source: "caps", records: 0 });
    expect(m.costUsd.high).toBeCloseTo(3.6384, 10);
    expect(e.totalUsd.expected).toBeCloseTo(0.8 + 3.6384, 10);
    expect(e.totalUsd.low).toBeCloseTo(0.4, 10);
    expect(e.totalUsd.high).toBeCloseTo(1.2 + 3.6384, 10);
    // The text form labels the upper bound; nothing new in runs/.
    const text = kgate(["--root", paths.root, "calibrate", "--estimate"]).stdout;
    expect(text).toContain("from 3 earlier record(s)");
    expect(text).toContain("upper bound from the token caps");
    expect(readdirSync(paths.runs)).toEqual(["old"]);
    const unknown = kgate(["--root", paths.root, "calibrate", "nope", "--estimate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^kgate: .*no task "nope"/);
  });

  it("prints the tokens its upper bound prices and the rates: tokens x rates = the cost (issue 47 item 5)", () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const frontier = {
      harness: "builtin",
      provider: "anthropic",
      model: "f",
      tokenBudget: 100_000,
      maxTurns: 4,
      maxOutputTokens: 5_000,
      // the dearest input-side rate is the cache write's, $2.5 per million
      pricing: { inputPerMTok: 2, outputPerMTok: 10, cacheWritePerMTok: 2.5 },
    };
    writeFileSync(
      paths.config,
      JSON.stringify({
        agents: { frontier, mid: { ...frontier, provider: "openai" } },
        calibration: { n: 4, cells: [CELLS[0]] },
      }),
    );
    const text = kgate(["--root", paths.root, "calibrate", "--estimate"]).stdout;
    // tokens: min(budget 100,000, task maxTokens 500,000) = 100,000; output at most 4 turns x 5,000 =
    // 20,000. Most output: 80,000 in x $2.5/M + 20,000 out x $10/M = $0.20 + $0.20 = $0.40 a trial; all
    // in: 100,000 x $2.5/M = $0.25, less. 4 trials: $1.60. (Before, the line said 100,000 in / 0 out.)
    expect(text).toContain(
      "alpha  frontier+A: 4 trial(s), 80000 in / 20000 out / 0 cache tokens per trial, $1.6 ($0-$1.6)  [upper bound from the token caps (no earlier record): $2.5/MTok in, $10/MTok out (the dearest rate of each kind)]",
    );
  });
});
