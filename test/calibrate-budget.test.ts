// The cost ceiling (--max-cost, src/calibrate/budget.ts over src/cost): a trial's worst case from the token caps at
// the prices; a session that stops placing trials before the ceiling, leaves the short task incomplete
// and states spent / reserved / ceiling in summary.json; a resume with a higher ceiling finishes it.
// Trials come from the in-process scripted runner (fixed costs per record), not a model.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  type Backend,
  CalibrationConfig,
  CalibrationError,
  calibrate,
  type TrialJob,
} from "../src/calibrate/index.ts";
import { type CostCaps, worstCaseUsd } from "../src/cost/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { agentInfo, fakeRunner, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

class Sink extends Writable {
  text = "";
  override _write(chunk: Buffer, _e: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
}

const backend: Backend = {
  agents: async (names) =>
    new Map(names.map((n) => [n, agentInfo(n, n === "frontier" ? "anthropic" : "openai")])),
  start: async () => ({
    runner: (job: TrialJob, signal: AbortSignal) =>
      fakeRunner({ pass: { "frontier+A": 1, "frontier-A": 0, "mid+A": 0, control: 0 } })(job, signal),
    stop: async () => {},
  }),
};

describe("worst case of a trial", () => {
  const caps: CostCaps = {
    tokenBudget: 100_000,
    maxTurns: 10,
    maxOutputTokens: 2000,
    pricing: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
  };
  it("puts as many tokens as the caps allow at the output price and the rest at the dearest input price", () => {
    // output <= 10 turns x 2000 = 20,000 tokens; 20,000 x $15/M + 80,000 x $3.75/M = 0.30 + 0.30
    expect(worstCaseUsd(caps, 500_000)).toBeCloseTo(0.6, 10);
    // the task's maxTokens 50,000 binds: 20,000 x 15/M + 30,000 x 3.75/M = 0.30 + 0.1125
    expect(worstCaseUsd(caps, 50_000)).toBeCloseTo(0.4125, 10);
    // an output budget of 1000 tokens: 1000 x 15/M + 99,000 x 3.75/M = 0.015 + 0.37125
    expect(worstCaseUsd({ ...caps, outputTokenBudget: 1000 }, 500_000)).toBeCloseTo(0.38625, 10);
    expect(worstCaseUsd({ ...caps, pricing: null }, 500_000)).toBeNull();
  });
});

describe("--max-cost in a session", () => {
  // Worst case: 1,000,000 tokens capped by the task's maxTokens 500,000, all at $0.5/M = $0.25.
  const caps = (): CostCaps => ({
    tokenBudget: 1_000_000,
    maxTurns: 1,
    maxOutputTokens: 1,
    pricing: { inputPerMTok: 0.5, outputPerMTok: 0.5 },
  });

  it("starts no trial whose worst case would cross the ceiling; a resume with more finishes the run", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const config = CalibrationConfig.parse({ curtail: false, concurrency: 1 });
    const stderr = new Sink();
    const base = { paths, config, taskIds: [], stderr, live: false };
    const first = await calibrate({ ...base, runId: "b1", maxCost: { ceilingUsd: 0.3, caps } }, backend);
    // Each record costs $0.01 (the fixture's default). One at a time, trial k+1 starts while
    // 0.01 k + 0.25 <= 0.30, i.e. k <= 5: six trials run, the seventh is refused.
    expect(first.engine.written).toHaveLength(6);
    expect(first.summary.tasks[0]!.decision).toBe("incomplete");
    expect(first.summary.budget?.ceilingUsd).toBe(0.3);
    expect(first.summary.budget?.spentUsd).toBeCloseTo(0.06, 10);
    expect(first.summary.budget?.reservedUsd).toBeCloseTo(0, 10);
    expect(first.summary.budget!.refused).toBeGreaterThan(0);
    const json = JSON.parse(readFileSync(path.join(first.run.dir, "summary.json"), "utf8"));
    expect(json.budget.spentUsd).toBeCloseTo(0.06, 10);
    expect(json.warnings.join("\n")).toContain("--max-cost <more>");

    const second = await calibrate({ ...base, resume: "b1", maxCost: { ceilingUsd: 10, caps } }, backend);
    // 4 cells x 5 = 20 trials; 14 were left. Spent counts the first session's six too: 20 x 0.01.
    expect(second.engine.written).toHaveLength(14);
    expect(second.summary.tasks[0]!.decision).toBe("retain");
    expect(second.summary.budget?.spentUsd).toBeCloseTo(0.2, 10);
    expect(readTrialRecords(first.run.dir).records).toHaveLength(20);
  });

  it("refuses a ceiling it cannot keep: an agent configuration without prices, named", async () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const stderr = new Sink();
    const run = calibrate(
      {
        paths,
        config: CalibrationConfig.parse({}),
        taskIds: [],
        stderr,
        live: false,
        runId: "b2",
        maxCost: {
          ceilingUsd: 1,
          caps: (agent) => (agent === "mid" ? { ...caps(), pricing: null } : caps()),
        },
      },
      backend,
    );
    await expect(run).rejects.toThrow(CalibrationError);
    await expect(run).rejects.toThrow(/mid have no "pricing"/);
  });
});

describe("--max-cost and --no-curtail on the command line", () => {
  it("refuses an amount that is not one, and --no-curtail on a resume, with exit 2", () => {
    const paths = tempProject();
    scaffoldTasks(paths, ["alpha"]);
    const bad = kgate(["--root", paths.root, "calibrate", "--max-cost", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('kgate: --max-cost: "lots" is not an amount in USD (e.g. 25 or 2.5)\n');
    const resume = kgate(["--root", paths.root, "calibrate", "--resume", "r", "--no-curtail"]);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain("--resume keeps the run's own plan; --no-curtail cannot change it");
  });
});
