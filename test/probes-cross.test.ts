// Crossed cells: the MOVER intervals of the model and harness effects (worked by hand), the check
// that crossed configurations really cross, and `kgate calibrate --cross` refusing ones that do not.
import { describe, expect, it } from "vitest";
import { AgentConfig, resolveAgentConfig } from "../src/agents/index.ts";
import { crossAnalysis, crossProblems, moverInterval } from "../src/calibrate/index.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import { tempProject, writeJson } from "./support/project.ts";

// Wilson 95% for 5/5: z^2 = 3.841459, denominator 1 + z^2/5 = 1.768292, centre (1 + z^2/10) / 1.768292
// = 0.782757, half (1.959964 / 1.768292) * sqrt(z^2 / 100) = 0.217241, so [0.565516, 1]; 0/5 mirrors it:
// [0, 0.434484].
const W = 0.434484;

describe("moverInterval", () => {
  it("is Newcombe's interval for a difference: 5/5 - 0/5 = 1, lower bound 1 - sqrt(2) * 0.434484", () => {
    const e = moverInterval([
      { c: 1, tally: { passes: 5, runs: 5 } },
      { c: -1, tally: { passes: 0, runs: 5 } },
    ]);
    expect(e.estimate).toBe(1);
    expect(e.interval.lo).toBeCloseTo(1 - Math.SQRT2 * W, 5); // 0.385547
    expect(e.interval.hi).toBeCloseTo(1, 9);
  });

  it("has no estimate while a cell has no valid trial", () => {
    expect(moverInterval([{ c: 1, tally: { passes: 0, runs: 0 } }]).estimate).toBeNull();
  });
});

describe("crossAnalysis", () => {
  it("puts a gap that follows the model into the model effect, none into the harness effect", () => {
    // frontier model 5/5 in both harnesses, mid model 0/5 in both.
    const a = crossAnalysis({
      ff: { passes: 5, runs: 5 },
      fm: { passes: 5, runs: 5 },
      mf: { passes: 0, runs: 5 },
      mm: { passes: 0, runs: 5 },
    });
    // model: (1 + 1)/2 - (0 + 0)/2 = 1; below: four terms of (0.5 * 0.434484)^2, sqrt = 0.434484.
    expect(a.model.estimate).toBe(1);
    expect(a.model.interval.lo).toBeCloseTo(1 - W, 5);
    // harness: (1 + 0)/2 - (1 + 0)/2 = 0; two terms of (0.5 * 0.434484)^2 either side: +-0.307227.
    expect(a.harness.estimate).toBe(0);
    expect(a.harness.interval.lo).toBeCloseTo(-Math.SQRT2 * 0.5 * W, 5);
    expect(a.harness.interval.hi).toBeCloseTo(Math.SQRT2 * 0.5 * W, 5);
    expect(a.model.inMidHarness.estimate).toBe(1);
    expect(a.harness.withMidModel.estimate).toBe(0);
  });
});

const MODEL_A = {
  provider: "anthropic",
  model: "big-model",
  pricing: { inputPerMTok: 15, outputPerMTok: 75 },
};
const MODEL_B = { provider: "openai", model: "small-model", baseUrl: "http://127.0.0.1:9/v1" };
const HARNESS_A = { harness: "builtin", maxTurns: 50 };
const HARNESS_B = { harness: "builtin", maxTurns: 12, systemPrompt: { mode: "append", text: "Be brief." } };

describe("crossProblems", () => {
  const resolved = (name: string, c: object) => resolveAgentConfig(name, AgentConfig.parse(c));
  it("accepts a true crossing and names every field of a false one", () => {
    const frontier = resolved("frontier", { ...MODEL_A, ...HARNESS_A });
    const mid = resolved("mid", { ...MODEL_B, ...HARNESS_B });
    const good = {
      frontier,
      mid,
      frontierModelMidHarness: resolved("fxm", { ...MODEL_A, ...HARNESS_B }),
      midModelFrontierHarness: resolved("mxf", { ...MODEL_B, ...HARNESS_A }),
    };
    expect(crossProblems(good)).toEqual([]);
    const bad = {
      ...good,
      frontierModelMidHarness: resolved("fxm", { ...MODEL_A, model: "other-model", ...HARNESS_B }),
      midModelFrontierHarness: resolved("mxf", { ...MODEL_B, ...HARNESS_A, maxTurns: 49 }),
    };
    expect(crossProblems(bad)).toEqual([
      "agents.fxm.model differs from agents.frontier.model (the model must be frontier's)",
      "agents.mxf.maxTurns differs from agents.frontier.maxTurns (the harness must be frontier's)",
    ]);
  });
});

describe("kgate calibrate --cross", () => {
  it("refuses configurations that do not cross, before any trial (exit 2)", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    writeJson(paths.config, {
      agents: {
        frontier: { ...MODEL_A, ...HARNESS_A },
        mid: { ...MODEL_B, ...HARNESS_B },
        "frontier-x-mid": { ...MODEL_A, ...HARNESS_A },
        "mid-x-frontier": { ...MODEL_B, ...HARNESS_A },
      },
    });
    const result = kgate(["--root", paths.root, "calibrate", "--cross"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--cross: the configurations do not cross:");
    expect(result.stderr).toContain(
      "agents.frontier-x-mid.maxTurns differs from agents.mid.maxTurns (the harness must be mid's)",
    );
    expect(result.stderr).toContain(
      "agents.frontier-x-mid.systemPrompt differs from agents.mid.systemPrompt (the harness must be mid's)",
    );
    const missing = kgate(["--root", paths.root, "calibrate", "--cross", "frontier-x-mid,nobody"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--cross: "nobody" is not a configuration in kgate.config.json');
  });
});
