// `kgate calibrate --cross`: the two crossed +A cells (frontier model in the mid harness, mid model
// in the frontier harness) added to the plan after checking the configurations really cross, and
// the model and harness effects read from the run's summary (cross.json and a few lines of text).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { loadAgentConfigs, type ResolvedAgentConfig } from "../agents/index.ts";
import {
  type CalibrationConfig,
  type CrossAnalysis,
  type CrossTally,
  crossAnalysis,
  crossProblems,
  type Effect,
} from "../calibrate/index.ts";
import { UsageError } from "../errors.ts";
import type { ProjectPaths } from "../project.ts";
import type { RunSummary } from "../report/index.ts";

export const CROSS_DEFAULT = "frontier-x-mid,mid-x-frontier";
export const CROSS_CELLS = { fm: "cross-fm+A", mf: "cross-mf+A" } as const;
const BASE_CELLS = { ff: "frontier+A", mm: "mid+A" } as const;

/** The plan's config with the crossed cells; throws a UsageError naming each field that breaks the crossing. */
export function withCrossCells(
  paths: ProjectPaths,
  config: CalibrationConfig,
  spec: string,
): CalibrationConfig {
  const names = spec.split(",").map((s) => s.trim());
  if (names.length !== 2 || names.some((n) => !n)) {
    throw new UsageError(
      `--cross "${spec}": expected <frontier model in mid harness>,<mid model in frontier harness>`,
    );
  }
  const agentOf = (cell: string) => {
    const found = config.cells.find((c) => c.name === cell && c.condition === "+A");
    if (!found)
      throw new UsageError(
        `--cross needs a +A cell named ${cell} (cells: ${config.cells.map((c) => c.name).join(", ")})`,
      );
    return found.agent;
  };
  const loaded = loadAgentConfigs(paths);
  const configOf = (name: string): ResolvedAgentConfig => {
    const found = loaded.agents.find((a) => a.name === name);
    if (!found) throw new UsageError(`--cross: "${name}" is not a configuration in ${loaded.file}`);
    return found;
  };
  const problems = crossProblems({
    frontier: configOf(agentOf(BASE_CELLS.ff)),
    mid: configOf(agentOf(BASE_CELLS.mm)),
    frontierModelMidHarness: configOf(names[0]!),
    midModelFrontierHarness: configOf(names[1]!),
  });
  if (problems.length > 0)
    throw new UsageError(`--cross: the configurations do not cross:\n  ${problems.join("\n  ")}`);
  const crossed = [
    { name: CROSS_CELLS.fm, agent: names[0]!, condition: "+A" as const, control: false },
    { name: CROSS_CELLS.mf, agent: names[1]!, condition: "+A" as const, control: false },
  ];
  return {
    ...config,
    cells: [...config.cells.filter((c) => !crossed.some((x) => x.name === c.name)), ...crossed],
  };
}

export interface CrossReport {
  /** Pooled over every task of the run, then per task. */
  all: CrossAnalysis;
  tasks: Record<string, CrossAnalysis>;
}

function tally(summary: RunSummary, spec: string, task?: string): CrossTally {
  const cells = summary.cells.filter((c) => c.spec === spec && (task === undefined || c.task === task));
  return cells.reduce(
    (t, c) => ({ passes: t.passes + c.counts.pass, runs: t.runs + c.counts.pass + c.counts.fail }),
    { passes: 0, runs: 0 },
  );
}

export function crossReport(summary: RunSummary): CrossReport {
  const of = (task?: string) =>
    crossAnalysis({
      ff: tally(summary, BASE_CELLS.ff, task),
      fm: tally(summary, CROSS_CELLS.fm, task),
      mf: tally(summary, CROSS_CELLS.mf, task),
      mm: tally(summary, BASE_CELLS.mm, task),
    });
  return { all: of(), tasks: Object.fromEntries(summary.tasks.map((t) => [t.id, of(t.id)])) };
}

const pp = (v: number) => `${v >= 0 ? "+" : ""}${(v * 100).toFixed(1)} pp`;
const effect = (e: Effect) =>
  e.estimate === null
    ? "n/a (a cell has no valid trial)"
    : `${pp(e.estimate)} [${pp(e.interval.lo)}, ${pp(e.interval.hi)}]`;

export function crossText(report: CrossReport): string {
  const a = report.all;
  const c = a.cells;
  return [
    "Cross cells (+A, all tasks): model x harness",
    `  frontier model: ${c.ff.passes}/${c.ff.runs} in the frontier harness, ${c.fm.passes}/${c.fm.runs} in the mid harness`,
    `  mid model:      ${c.mf.passes}/${c.mf.runs} in the frontier harness, ${c.mm.passes}/${c.mm.runs} in the mid harness`,
    `  model effect (frontier - mid, 95% MOVER): ${effect(a.model)}; in the frontier harness ${effect(a.model.inFrontierHarness)}, in the mid harness ${effect(a.model.inMidHarness)}`,
    `  harness effect (frontier - mid):          ${effect(a.harness)}; with the frontier model ${effect(a.harness.withFrontierModel)}, with the mid model ${effect(a.harness.withMidModel)}`,
    "",
  ].join("\n");
}

export function writeCross(dir: string, report: CrossReport): string {
  const file = path.join(dir, "cross.json");
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
