// The calibration config (kgate.config.json `calibration`), command-line overrides, cells per
// task, the plan with its digests, and the drift check that guards resume.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgentConfigs } from "../src/agents/index.ts";
import {
  applyOverrides,
  buildPlan,
  CalibrationConfig,
  expandCells,
  loadCalibrationConfig,
  OverrideError,
  parseCellOption,
  parseThresholdOption,
  planDrift,
} from "../src/calibrate/index.ts";
import { type ProjectPaths, projectPaths } from "../src/project.ts";
import { type LoadedTask, loadTask } from "../src/task/index.ts";
import { agentInfo, resolver, scaffoldTasks } from "./support/calibrate-fixtures.ts";
import { tempProject, writeJson } from "./support/project.ts";

function loaded(paths: ProjectPaths, id: string): LoadedTask {
  const result = loadTask(paths, id);
  if (!result.ok) throw new Error(`task ${id} does not load`);
  return result.task;
}

describe("calibration config", () => {
  it("defaults to the paper's protocol when kgate.config.json is absent", () => {
    const result = loadCalibrationConfig(tempProject());
    if (!result.ok) throw new Error("expected defaults");
    const c = result.config;
    expect(c.n).toBe(5);
    expect(c.cells.map((x) => [x.name, x.agent, x.condition, x.require, x.control])).toEqual([
      ["frontier+A", "frontier", "+A", { op: ">=", threshold: 0.6 }, false],
      ["frontier-A", "frontier", "-A", { op: "<=", threshold: 0 }, false],
      ["mid+A", "mid", "+A", { op: "<=", threshold: 0.4 }, false],
      ["control", "frontier", "perturbed", { op: "<=", threshold: 0 }, true],
    ]);
    expect(c.sequential).toMatchObject({ enabled: false, cap: 20, alpha: 0.05 });
  });

  it("reads the `calibration` key and ignores the rest of the file", () => {
    const paths = tempProject();
    writeJson(paths.config, {
      agents: { frontier: { whatever: true } },
      calibration: { n: 8, concurrency: 4, providerConcurrency: { anthropic: 1 } },
    });
    const result = loadCalibrationConfig(paths);
    expect(result.ok && result.config).toMatchObject({
      n: 8,
      concurrency: 4,
      providerConcurrency: { anthropic: 1 },
    });
  });

  it("names the file and the field of every error", () => {
    const paths = tempProject();
    const errors = (calibration: unknown) => {
      writeJson(paths.config, { calibration });
      const result = loadCalibrationConfig(paths);
      if (result.ok) throw new Error("expected errors");
      return result.errors.map((e) => `${e.file}: ${e.field}: ${e.message}`);
    };
    expect(
      errors({
        n: 0,
        cells: [{ name: "a", agent: "x", condition: "+A", require: "> 0.5" }],
        sequential: { colour: "blue" },
      }),
    ).toEqual([
      "kgate.config.json: calibration.n: Too small: expected number to be >=1",
      'kgate.config.json: calibration.cells[0].require: "> 0.5" is not a requirement: expected ">= t", "<= t" or "= 0" with t between 0 and 1',
      "kgate.config.json: calibration.sequential: unknown field(s): colour",
    ]);
    expect(
      errors({
        cells: [
          { name: "a", agent: "x", condition: "+A" },
          { name: "a", agent: "x", condition: "-A", control: true },
        ],
      }),
    ).toEqual([
      'kgate.config.json: calibration.cells[1].name: duplicate cell name "a"',
      "kgate.config.json: calibration.cells[1].require: a control needs a requirement",
    ]);
    expect(errors({ n: 10, sequential: { enabled: true, cap: 5 } })).toEqual([
      "kgate.config.json: calibration.sequential.cap: the cap (5) is below n (10)",
    ]);
  });

  it("accepts the committed kgate.config.json, whose agent part loads beside it", () => {
    const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
    const result = loadCalibrationConfig(repo);
    if (!result.ok) throw new Error(result.errors.map((e) => `${e.field}: ${e.message}`).join("\n"));
    expect(result.config).toEqual(
      CalibrationConfig.parse({ providerConcurrency: { anthropic: 2, "openai-compatible": 2 } }),
    );
    const agents = loadAgentConfigs(repo);
    expect(agents.errors).toEqual([]);
    expect(agents.agents.map((a) => a.name)).toEqual(expect.arrayContaining(["frontier", "mid"]));
  });

  it("reports a JSON syntax error with its line", () => {
    const paths = tempProject();
    writeFileSync(paths.config, '{\n  "calibration": { "n": 5, }\n}\n');
    const result = loadCalibrationConfig(paths);
    expect(!result.ok && result.errors[0]).toMatchObject({
      file: "kgate.config.json",
      field: "line 2, column 28",
    });
  });
});

describe("command-line overrides", () => {
  const base = CalibrationConfig.parse({});

  it("parses --cell and --threshold", () => {
    expect(parseCellOption("opus+A=opus:+A>=0.7")).toEqual({
      name: "opus+A",
      agent: "opus",
      condition: "+A",
      require: { op: ">=", threshold: 0.7 },
      control: false,
    });
    expect(parseCellOption("v=opus:variant:short").condition).toBe("variant:short");
    expect(parseCellOption("v=opus:variant:short=0").require).toEqual({ op: "<=", threshold: 0 });
    expect(parseThresholdOption("mid+A<=0.2")).toEqual({
      name: "mid+A",
      require: { op: "<=", threshold: 0.2 },
    });
    expect(() => parseCellOption("nonsense")).toThrow(/expected name=agent:condition/);
    expect(() => parseCellOption("x=a:+B")).toThrow(/condition "\+B" must be/);
    expect(() => parseThresholdOption("mid+A<0.2")).toThrow(OverrideError);
  });

  it("applies n, thresholds, agent names, controls and sequential settings", () => {
    const c = applyOverrides(base, {
      n: 3,
      threshold: ["frontier+A>=0.8"],
      frontier: "opus",
      mid: "qwen",
      controls: false,
      sequential: true,
      cap: 12,
      confidence: 0.9,
      providerConcurrency: ["anthropic=1"],
    });
    expect(c.n).toBe(3);
    expect(c.cells.map((x) => `${x.name}=${x.agent}:${x.condition}`)).toEqual([
      "frontier+A=opus:+A",
      "frontier-A=opus:-A",
      "mid+A=qwen:+A",
    ]);
    expect(c.cells[0]!.require).toEqual({ op: ">=", threshold: 0.8 });
    expect(c.sequential).toMatchObject({ enabled: true, cap: 12 });
    expect(c.sequential.alpha).toBeCloseTo(0.1, 12);
    expect(c.providerConcurrency).toEqual({ anthropic: 1 });
  });

  it("refuses what cannot be meant", () => {
    expect(() => applyOverrides(base, { threshold: ["nope>=0.5"] })).toThrow(/no cell "nope"/);
    expect(() => applyOverrides(base, { sequential: true, n: 10, cap: 5 })).toThrow(
      /cap \(5\) is below n \(10\)/,
    );
    expect(() => applyOverrides(base, { n: 0 })).toThrow(/-n: expected a positive integer/);
    expect(() => applyOverrides(base, { confidence: 1.5 })).toThrow(/--confidence/);
  });
});

describe("cells and the plan", () => {
  it("expands the control into one cell per perturbed variant", () => {
    const paths = tempProject();
    const [task] = scaffoldTasks(paths, ["alpha"]);
    const { cells, notes } = expandCells(task!, CalibrationConfig.parse({}).cells);
    expect(cells.map((c) => [c.label, c.condition, c.key])).toEqual([
      ["frontier+A", "+A", "alpha frontier +A"],
      ["frontier-A", "-A", "alpha frontier -A"],
      ["mid+A", "+A", "alpha mid +A"],
      ["control", "variant:perturbed", "alpha frontier variant:perturbed"],
    ]);
    expect(notes).toEqual([]);
  });

  it("notes a task without a perturbed variant and refuses an unknown variant or a duplicate", () => {
    const paths = tempProject();
    const [task] = scaffoldTasks(paths, ["alpha"]);
    const bare = { ...task!, variants: [] };
    expect(expandCells(bare, CalibrationConfig.parse({}).cells).notes).toEqual([
      'no perturbed variant declared: cell "control" is left out',
    ]);
    const specs = CalibrationConfig.parse({
      cells: [{ name: "x", agent: "a", condition: "variant:short" }],
    }).cells;
    expect(() => expandCells(task!, specs)).toThrow(
      /task "alpha" has no variant "short" \(declared: perturbed, compressed\)/,
    );
    const twice = CalibrationConfig.parse({
      cells: [
        { name: "x", agent: "a", condition: "+A" },
        { name: "y", agent: "a", condition: "+A" },
      ],
    }).cells;
    expect(() => expandCells(task!, twice)).toThrow(/cells "x" and "y" both run a \+A on task "alpha"/);
  });

  it("records the digests of tasks, artefacts and agents, and detects each kind of drift", () => {
    const paths = tempProject();
    const tasks = scaffoldTasks(paths, ["alpha", "beta"]);
    const plan = buildPlan({
      runId: "r1",
      config: CalibrationConfig.parse({}),
      tasks,
      resolveAgent: resolver(),
    });
    expect(plan.cells).toHaveLength(8);
    expect(plan.agents.map((a) => [a.name, a.provider])).toEqual([
      ["frontier", "anthropic"],
      ["mid", "openai"],
    ]);
    expect(plan.tasks[0]!.digests.artefact).toBe(tasks[0]!.digests.artefact);

    const now = () => new Map(["alpha", "beta"].map((id) => [id, loaded(paths, id)]));
    const agents = new Map(plan.agents.map((a) => [a.name, a]));
    expect(planDrift(plan, { tasks: now(), agents })).toEqual([]);

    writeFileSync(path.join(paths.artefacts, "alpha", "artefact.md"), "# changed conventions\n".repeat(20));
    writeFileSync(
      path.join(paths.artefacts, "beta", "variants", "perturbed.md"),
      "# other perturbation\n".repeat(20),
    );
    writeFileSync(
      path.join(paths.tasks, "beta", "instruction.md"),
      "A different instruction for the work.\n",
    );
    const changedAgents = new Map(agents).set("mid", agentInfo("mid", "openai", "a-new-digest"));
    const drift = planDrift(plan, { tasks: now(), agents: changedAgents });
    expect(drift).toEqual([
      expect.stringMatching(/^artefact of task "alpha" changed \(plan [0-9a-f]{12}…, now [0-9a-f]{12}…\)$/),
      expect.stringMatching(/^task "beta" definition \(instruction\) changed/),
      expect.stringMatching(/^variant "perturbed" of task "beta" changed/),
      'agent configuration "mid" changed (plan digest-of-mi…, now a-new-digest…)',
    ]);
  });
});
