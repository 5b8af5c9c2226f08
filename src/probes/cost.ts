// What a probe's unit costs at most and what a probe run would cost: every unit carries its bound (its
// conversations at the configuration's output cap), the cost ceiling (--max-cost) reserves it through
// the engine's admit hook, and the estimate (--estimate) prices each configuration's units from the
// earlier records of the same probe, task and configuration, else at the bound.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  CostCeiling,
  type CostSample,
  conversationBound,
  estimateGroup,
  type RunEstimate,
  runEstimate,
  type UnitBound,
} from "../cost/index.ts";
import type { Usage } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { type Admit, readTrialRecords } from "../trial/index.ts";
import type { ProbeAgent } from "./models.ts";
import { readProbeLines } from "./probe-log.ts";

/** A probe's unit as the ceiling sees it: its configuration, its bound, its group (a compression arm's folder). */
export interface ProbeWork {
  agent: ProbeAgent;
  bound: UnitBound;
  /** The folder of its records, relative to the run ("" for the run's own; `compress/<arm>`). */
  group: string;
}
export interface ProbeAttempt {
  costUsd: number | null;
}
export type ProbeAdmit = Admit<ProbeWork, ProbeAttempt>;

/** The run's admit hook for one probe's units (`work`: a job as the ceiling sees it), settled with `costOf` of their records. */
export function probeAdmit<J, R>(
  admit: ProbeAdmit | undefined,
  work: (job: J) => ProbeWork,
  costOf: (record: R) => number | null,
): Admit<J, R> | undefined {
  if (!admit) return undefined;
  return (job) => {
    const a = admit(work(job));
    return a.ok
      ? { ok: true, settle: (r: R | null) => a.settle?.(r === null ? null : { costUsd: costOf(r) }) }
      : a;
  };
}

/** An inline slot's job as the ceiling sees it: its conversation's bound, its folder as its group. */
export const inlineWork =
  (run: { runDir: string }) =>
  (job: { agent: ProbeAgent; system: string; turns: readonly string[]; dir: string }): ProbeWork => ({
    agent: job.agent,
    bound: conversationBound(
      job.agent.config.pricing,
      job.agent.config.maxOutputTokens,
      job.system,
      job.turns,
    ),
    group: path.relative(run.runDir, job.dir),
  });

/** --max-cost over a probe's units; spent counts the run's earlier attempts. */
export function probeCeiling(ceilingUsd: number, spentBefore: number): CostCeiling<ProbeWork, ProbeAttempt> {
  return new CostCeiling<ProbeWork, ProbeAttempt>({
    ceilingUsd,
    spentBefore,
    worstCase: (w) => w.bound.usd!,
    costOf: (a) => a.costUsd,
    unit: "probe trial",
  });
}

const usageSample = (u: Usage): CostSample => ({
  tokens: {
    input: u.inputTokens,
    output: u.outputTokens,
    cacheRead: u.cacheReadTokens,
    cacheWrite: u.cacheWriteTokens,
  },
  costUsd: u.costUsd,
});

/** Every cost a probe run's folder holds: its trial records (arm folders too) and its canary lines. */
export function probeRunCosts(dir: string): number {
  const groups = [dir, ...armFolders(dir)];
  const trials = groups
    .flatMap((g) => readTrialRecords(g).records)
    .reduce((s, r) => s + (r.usage.costUsd ?? 0), 0);
  const lines = readProbeLines(dir).records.filter((l) => l.probe === "canary");
  return trials + lines.reduce((s, l) => s + (l.usage?.costUsd ?? 0), 0);
}

function armFolders(dir: string): string[] {
  const arms = path.join(dir, "compress");
  if (!existsSync(arms)) return [];
  return readdirSync(arms, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(arms, d.name));
}

/** Earlier samples of the same probe, task and configuration, by group, from every run under runs/. */
function earlierSamples(
  runsDir: string,
  probe: string,
  task: LoadedTask,
  digest: string,
  group: string,
): CostSample[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      const dir = path.join(runsDir, d.name);
      try {
        const settings = JSON.parse(readFileSync(path.join(dir, "probe.json"), "utf8"));
        if (
          settings.probe !== probe ||
          settings.task?.id !== task.id ||
          settings.task?.digest !== task.digests.task
        )
          return [];
      } catch {
        return []; // not a probe run
      }
      if (probe === "canary")
        return readProbeLines(dir)
          .records.filter(
            (l) => l.probe === "canary" && l.agent.digest === digest && l.error == null && l.usage,
          )
          .map((l) => usageSample(l.usage!));
      return readTrialRecords(path.join(dir, group))
        .records.filter((r) => r.agent.digest === digest && r.error === null)
        .map((r) => usageSample(r.usage));
    });
}

/** The estimate of a probe run from the units it would start (collected by a refusing admit hook). */
export function estimateProbe(o: {
  runsDir: string;
  probe: string;
  task: LoadedTask;
  works: readonly ProbeWork[];
}): RunEstimate {
  const groups = new Map<string, ProbeWork[]>();
  for (const w of o.works) {
    const key = `${w.agent.config.name}${w.group ? `  ${w.group}` : ""}`;
    groups.set(key, [...(groups.get(key) ?? []), w]);
  }
  return runEstimate(
    [...groups.entries()].map(([label, works]) => {
      const { agent, group } = works[0]!;
      const dearest = works.map((w) => w.bound).reduce((a, b) => ((b.usd ?? 0) > (a.usd ?? 0) ? b : a));
      const samples = earlierSamples(o.runsDir, o.probe, o.task, agent.config.digest, group);
      return estimateGroup(`${o.probe} ${o.task.id}  ${label}`, works.length, samples, dearest);
    }),
  );
}
