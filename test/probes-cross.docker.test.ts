// Crossed cells: the MOVER intervals of the model and harness effects (worked by hand), the check
// that crossed configurations really cross, `kgate calibrate --cross` refusing ones that do not,
// and a real calibration run with the crossed cells.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentConfig, resolveAgentConfig } from "../src/agents/index.ts";
import { crossAnalysis, crossProblems, moverInterval } from "../src/calibrate/index.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync, type PolicyOptions, scriptedPolicy } from "./support/scripted-model.ts";

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

describe("kgate calibrate --cross end to end (real sandboxes, scripted models)", () => {
  // Both models solve +A in three turns (read the reference, write, finish) through the real SDK
  // clients; the mid harness allows one turn only, so whatever runs in it never writes: a pure
  // harness effect by construction (scripted replies, not a real model's behaviour).
  const POLICY: PolicyOptions = {
    seed: 3,
    artefactPath: "docs/internal/specification.md",
    perturbedMarker: "Perturbed variant",
    output: {
      path: "output/result.csv",
      correct: "item,value\nwidget,3.36\ngadget,5.60\n",
      default: "item,value\nwidget,3.00\ngadget,5.00\n",
      perturbed: "item,value\nwidget,3.45\ngadget,5.75\n",
    },
    odds: { cross: { "frontier-model": { "+A": 1, "-A": 0 }, "mid-model": { "+A": 1 } } },
  };
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer(scriptedPolicy(POLICY).script);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("splits the frontier/mid gap into model and harness effects", async () => {
    sandboxImage();
    const paths = tempProject();
    scaffoldTask(paths, { id: "cross", gate: "convention" });
    appendFileSync(path.join(paths.tasks, "cross", "instruction.md"), "\n(batch: cross)\n");
    const frontierModel = { provider: "anthropic", model: "frontier-model", baseUrl: server.anthropicUrl };
    const midModel = { provider: "openai", model: "mid-model", baseUrl: server.openaiUrl };
    const common = { harness: "builtin", apiKeyEnv: "KGATE_E2E_KEY", retry: { maxRetries: 0 } };
    const frontierHarness = { ...common, maxTurns: 50 };
    const midHarness = { ...common, maxTurns: 1 };
    writeJson(paths.config, {
      agents: {
        frontier: { ...frontierModel, ...frontierHarness },
        mid: { ...midModel, ...midHarness },
        "frontier-x-mid": { ...frontierModel, ...midHarness },
        "mid-x-frontier": { ...midModel, ...frontierHarness },
      },
      calibration: { n: 2, concurrency: 2 },
    });
    const result = await kgateAsync(
      ["--root", paths.root, "calibrate", "--cross", "--no-controls", "--run-id", "x1", "--json"],
      { KGATE_E2E_KEY: "sk-loopback" },
    );
    expect(result.stderr).toContain("cross: runs/x1/cross.json");
    const summary = JSON.parse(result.stdout) as {
      cells: Array<{ spec: string; counts: { pass: number; fail: number } }>;
      cross: { all: ReturnType<typeof crossAnalysis> };
    };
    const counts = Object.fromEntries(
      summary.cells.map((c) => [c.spec, `${c.counts.pass}/${c.counts.pass + c.counts.fail}`]),
    );
    expect(counts).toEqual({
      "frontier+A": "2/2",
      "frontier-A": "0/2",
      "mid+A": "0/2",
      "cross-fm+A": "0/2",
      "cross-mf+A": "2/2",
    });
    const { cells, model, harness } = summary.cross.all;
    expect(cells).toEqual({
      ff: { passes: 2, runs: 2 },
      fm: { passes: 0, runs: 2 },
      mf: { passes: 2, runs: 2 },
      mm: { passes: 0, runs: 2 },
    });
    // model: (1 + 0)/2 - (1 + 0)/2 = 0; harness: (1 + 1)/2 - (0 + 0)/2 = 1. Wilson 95% of 2/2: z^2 = 3.841459,
    // denominator 1 + z^2/2 = 2.920730, centre 1.960365 / 2.920730 = 0.671185, half 0.671053 * 0.489990
    // = 0.328809, so lo = 0.342376 (0/2: hi = 0.657624); harness lo = 1 - sqrt(4 * (0.5 * 0.657624)^2).
    expect(model.estimate).toBe(0);
    expect(harness.estimate).toBe(1);
    expect(harness.interval.lo).toBeCloseTo(0.342376, 5);
    expect(harness.withMidModel.estimate).toBe(1);
    expect(model.inMidHarness.estimate).toBe(0);
    const written = JSON.parse(readFileSync(path.join(paths.runs, "x1", "cross.json"), "utf8"));
    expect(written.tasks.cross.cells).toEqual(cells);
  }, 300_000);
});
