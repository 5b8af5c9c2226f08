// The recitation probe: turn 1 gives the artefact and the data inline and asks for the conventions,
// turn 2 asks for the outputs; per configuration, the failure layer: knowledge (recited wrong),
// application (recited right, answered wrong) or harness (inline passes, the sandboxed cell fails).
import type { ResolvedAgentConfig } from "../agents/index.ts";
import { outcomeOf, type TrialRecord } from "../record/index.ts";
import { type LoadedTask, renderInline } from "../task/index.ts";
import { loadVerifier } from "../verify/index.ts";
import { conventionQuestion, declaredConventions, scoreConventions } from "./conventions.ts";
import type { ProbeAgent } from "./models.ts";
import { appendProbeLine, type ConventionResult, readProbeLines } from "./probe-log.ts";
import {
  type InlineSlot,
  latestInline,
  latestOf,
  type ProbeRun,
  runInlineSlots,
  type UnitsRun,
} from "./run.ts";

export const RECITE_LEAD =
  "Before any task: restate the conventions the files above establish, exactly as they state them.";
export const RECITE_NEXT = "Now the task itself.";

export type Layer = "knowledge" | "application" | "harness" | "none" | "undetermined";

export interface ReciteTrial {
  trialId: string;
  conventions: ConventionResult[];
  recitedRight: boolean;
  verdict: TrialRecord["verdict"]["status"];
  infra: boolean;
}

export interface ReciteReport {
  task: string;
  agent: { name: string; digest: string; model: string };
  trials: ReciteTrial[];
  /** Trials without an infrastructure error. */
  valid: number;
  recitedRight: number;
  inlinePassed: number;
  /** The sandboxed +A cell of the same configuration, from the records given; null when none. */
  sandboxed: { passed: number; runs: number } | null;
  layer: Layer;
  reason: string;
}

/** The layer a configuration fails at: each rule holds when it holds in at least half the valid trials. */
export function failureLayer(
  valid: number,
  recitedRight: number,
  inlinePassed: number,
  sandboxed: { passed: number; runs: number } | null,
): { layer: Layer; reason: string } {
  if (valid === 0)
    return { layer: "undetermined", reason: "no valid inline trial (infrastructure errors only)" };
  const share = (k: number, of: number) => `${k}/${of}`;
  if (2 * recitedRight <= valid)
    return {
      layer: "knowledge",
      reason: `recited every convention right in only ${share(recitedRight, valid)} trials`,
    };
  if (2 * inlinePassed <= valid) {
    return {
      layer: "application",
      reason: `recited right in ${share(recitedRight, valid)} trials but the inline answer passed only ${share(inlinePassed, valid)}`,
    };
  }
  if (!sandboxed || sandboxed.runs === 0) {
    return {
      layer: "none",
      reason: `inline passed ${share(inlinePassed, valid)}; no sandboxed +A trials of this configuration to compare`,
    };
  }
  if (2 * sandboxed.passed <= sandboxed.runs) {
    return {
      layer: "harness",
      reason: `inline passed ${share(inlinePassed, valid)} but the sandboxed +A cell only ${share(sandboxed.passed, sandboxed.runs)}`,
    };
  }
  return {
    layer: "none",
    reason: `inline passed ${share(inlinePassed, valid)} and the sandboxed +A cell ${share(sandboxed.passed, sandboxed.runs)}`,
  };
}

/** Passes and valid runs of the sandboxed +A trials of one configuration (same name and digest). */
export function sandboxedCell(
  records: readonly TrialRecord[],
  task: string,
  config: ResolvedAgentConfig,
): { passed: number; runs: number } | null {
  const cell = records.filter(
    (r) =>
      r.form === "sandbox" &&
      r.task.id === task &&
      r.condition === "+A" &&
      r.agent.name === config.name &&
      r.agent.digest === config.digest &&
      outcomeOf(r) !== "infra",
  );
  if (cell.length === 0) return null;
  return { passed: cell.filter((r) => r.verdict.status === "pass").length, runs: cell.length };
}

export interface ReciteResult extends UnitsRun<TrialRecord> {
  reports: ReciteReport[];
}

/**
 * n recitation trials per configuration through the engine; records and probe lines are appended as
 * each finishes, and the reports are read back from them (a resume adds to what is there).
 */
export async function recite(
  task: LoadedTask,
  agents: readonly ProbeAgent[],
  n: number,
  run: ProbeRun,
  sandboxRecords: readonly TrialRecord[] = [],
): Promise<ReciteResult> {
  const conventions = declaredConventions(await loadVerifier(task));
  const inline = renderInline(task, "+A", { maxEnvironmentBytes: run.maxEnvironmentBytes });
  const turns = [
    `${inline.filesText}\n---\n\n${conventionQuestion(conventions, RECITE_LEAD)}`,
    `${RECITE_NEXT}\n\n${inline.instruction}\n\n---\n\n${inline.answerText}`,
  ];
  const slots: InlineSlot[] = agents.flatMap((agent) =>
    Array.from({ length: n }, (_, index) => ({
      agent,
      task,
      condition: "+A" as const,
      index,
      system: inline.system,
      turns,
      dir: run.runDir,
    })),
  );
  const ran = await runInlineSlots(run, slots, (job, { record, replies }) =>
    appendProbeLine(run.runDir, {
      probe: "recite",
      trialId: record.trialId,
      index: record.index,
      attempt: record.attempt,
      task: task.id,
      agent: { name: job.agent.config.name, digest: job.agent.config.digest, model: job.agent.config.model },
      kgateVersion: run.kgateVersion,
      conventions: scoreConventions(conventions, replies[0] ?? ""),
    }),
  );
  const latest = latestInline(run.runDir);
  const lines = new Map(
    readProbeLines(run.runDir)
      .records.filter((l) => l.probe === "recite")
      .map((l) => [l.trialId, l]),
  );
  const reports = agents.map(({ config }) => {
    const agent = { name: config.name, digest: config.digest, model: config.model };
    const trials: ReciteTrial[] = slots
      .filter((s) => s.agent.config === config)
      .flatMap((slot) => {
        const record = latestOf(latest, slot);
        if (!record) return []; // never ran (cancelled before it started)
        const line = lines.get(record.trialId);
        const scores = line?.conventions ?? [];
        return [
          {
            trialId: record.trialId,
            conventions: scores,
            recitedRight: line !== undefined && scores.every((c) => c.correct),
            verdict: record.verdict.status,
            infra: outcomeOf(record) === "infra",
          },
        ];
      });
    const valid = trials.filter((t) => !t.infra);
    const recitedRight = valid.filter((t) => t.recitedRight).length;
    const inlinePassed = valid.filter((t) => t.verdict === "pass").length;
    const sandboxed = sandboxedCell(sandboxRecords, task.id, config);
    return {
      task: task.id,
      agent,
      trials,
      valid: valid.length,
      recitedRight,
      inlinePassed,
      sandboxed,
      ...failureLayer(valid.length, recitedRight, inlinePassed, sandboxed),
    };
  });
  return { ...ran, reports };
}
