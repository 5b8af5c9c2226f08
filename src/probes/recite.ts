// The recitation probe: turn 1 gives the artefact and the data inline and asks for the conventions,
// turn 2 asks for the outputs; per configuration, the failure layer: knowledge (recited wrong),
// application (recited right, answered wrong) or harness (inline passes, the sandboxed cell fails).
import type { ResolvedAgentConfig } from "../agents/index.ts";
import { outcomeOf, type TrialRecord } from "../model/index.ts";
import { type LoadedTask, renderInline } from "../task/index.ts";
import { loadVerifier } from "../verify/index.ts";
import { conventionQuestion, declaredConventions, scoreConventions } from "./conventions.ts";
import { runInlineTrial } from "./inline-trial.ts";
import type { ProbeAgent } from "./models.ts";
import { appendProbeLine, type ConventionResult } from "./probe-log.ts";

export interface ProbeRun {
  runId: string;
  runDir: string;
  kgateVersion: string;
  maxEnvironmentBytes?: number;
  signal?: AbortSignal;
  onRecord?: (record: TrialRecord) => void;
}

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

/** n recitation trials per configuration; records and probe lines are appended as each finishes. */
export async function recite(
  task: LoadedTask,
  agents: readonly ProbeAgent[],
  n: number,
  run: ProbeRun,
  sandboxRecords: readonly TrialRecord[] = [],
): Promise<ReciteReport[]> {
  const conventions = declaredConventions(await loadVerifier(task));
  const inline = renderInline(task, "+A", { maxEnvironmentBytes: run.maxEnvironmentBytes });
  const turns = [
    `${inline.filesText}\n---\n\n${conventionQuestion(conventions, RECITE_LEAD)}`,
    `${RECITE_NEXT}\n\n${inline.instruction}\n\n---\n\n${inline.answerText}`,
  ];
  const reports: ReciteReport[] = [];
  for (const { config, model } of agents) {
    const agent = { name: config.name, digest: config.digest, model: config.model };
    const trials: ReciteTrial[] = [];
    for (let index = 0; index < n; index++) {
      const { record, replies } = await runInlineTrial({
        task,
        condition: "+A",
        config,
        model,
        system: inline.system,
        turns,
        runId: run.runId,
        runDir: run.runDir,
        index,
        signal: run.signal,
      });
      run.onRecord?.(record);
      const scores = scoreConventions(conventions, replies[0] ?? "");
      appendProbeLine(run.runDir, {
        probe: "recite",
        trialId: record.trialId,
        task: task.id,
        agent,
        kgateVersion: run.kgateVersion,
        conventions: scores,
      });
      trials.push({
        trialId: record.trialId,
        conventions: scores,
        recitedRight: scores.every((s) => s.correct),
        verdict: record.verdict.status,
        infra: outcomeOf(record) === "infra",
      });
    }
    const valid = trials.filter((t) => !t.infra);
    const recitedRight = valid.filter((t) => t.recitedRight).length;
    const inlinePassed = valid.filter((t) => t.verdict === "pass").length;
    const sandboxed = sandboxedCell(sandboxRecords, task.id, config);
    reports.push({
      task: task.id,
      agent,
      trials,
      valid: valid.length,
      recitedRight,
      inlinePassed,
      sandboxed,
      ...failureLayer(valid.length, recitedRight, inlinePassed, sandboxed),
    });
  }
  return reports;
}
