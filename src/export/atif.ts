// One trial as an ATIF trajectory: its steps (atif-steps.ts), the agent that ran, the token totals
// and cost in final_metrics, and under extra.kgate the verdict, the error, the provenance and the
// events that are no step, so a reader of ATIF sees what kgate decided about the trial.
import type { TrajectoryEvent, TrialRecord } from "../record/index.ts";
import { ATIF_VERSION, AtifTrajectory } from "./atif-schema.ts";
import { atifSteps } from "./atif-steps.ts";

export interface AtifInput {
  record: TrialRecord;
  /** The trial's trajectory events (empty when it has none). */
  events: readonly TrajectoryEvent[];
  /** The task's instruction as the agent got it, when its bytes match the record's digest; else null. */
  instruction: string | null;
  /** Problems reading the trajectory (bad lines), kept in extra.kgate. */
  problems?: readonly string[];
  kgateVersion: string;
}

/** The verdict, stop and cost in one line: `kgate trial t.0: pass (reward 1, score 1.00); stop finish; cost $0.0123`. */
function verdictNote(record: TrialRecord): string {
  const v = record.verdict;
  const score = v.status === "unverified" ? "" : ` (reward ${v.reward}, score ${v.score.toFixed(2)})`;
  const cost = record.usage.costUsd === null ? "cost unknown" : `cost $${record.usage.costUsd.toFixed(4)}`;
  const error = record.error ? `; error ${record.error.kind}: ${record.error.message}` : "";
  return `kgate trial ${record.trialId}: ${v.status}${score}; stop ${record.stopReason}; ${cost}${error}`;
}

export function atifTrajectory(input: AtifInput): AtifTrajectory {
  const { record } = input;
  const instruction = input.instruction === null ? null : { text: input.instruction, at: record.startedAt };
  const { steps, other } = atifSteps(input.events, instruction);
  // ATIF needs a step; a trial whose trajectory is gone and whose instruction changed gets one saying so.
  if (steps.length === 0) {
    steps.push({
      step_id: 1,
      timestamp: record.startedAt,
      source: "system",
      message: "",
      extra: {
        kgate: { note: "neither the instruction nor a trajectory event was recorded for this trial" },
      },
    });
  }
  const u = record.usage;
  return AtifTrajectory.parse({
    schema_version: ATIF_VERSION,
    session_id: record.trialId,
    agent: {
      name: record.agent.harness,
      version: record.provenance?.harnessVersion ?? `kgate ${input.kgateVersion}`,
      ...(record.agent.model ? { model_name: record.agent.model } : {}),
      extra: { kgate_configuration: record.agent.name, kgate_configuration_digest: record.agent.digest },
    },
    steps,
    notes: verdictNote(record),
    final_metrics: {
      total_prompt_tokens: u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens,
      total_completion_tokens: u.outputTokens,
      total_cached_tokens: u.cacheReadTokens,
      ...(u.costUsd === null ? {} : { total_cost_usd: u.costUsd }),
      total_steps: steps.length,
      extra: { model_calls: u.modelCalls, cache_creation_input_tokens: u.cacheWriteTokens },
    },
    extra: {
      kgate: {
        run_id: record.runId,
        trial_id: record.trialId,
        task: record.task.id,
        task_digests: record.task.digests,
        condition: record.condition,
        form: record.form,
        index: record.index,
        attempt: record.attempt,
        started_at: record.startedAt,
        finished_at: record.finishedAt,
        stop_reason: record.stopReason,
        verdict: record.verdict,
        error: record.error,
        cost_usd: u.costUsd,
        usage: u,
        provenance: record.provenance,
        exported_by: `kgate ${input.kgateVersion}`,
        events: other,
        ...(input.problems && input.problems.length > 0 ? { trajectory_problems: input.problems } : {}),
      },
    },
  });
}
