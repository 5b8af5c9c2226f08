// The engine over trials: a slot is a task under a condition with an agent at an index, an attempt's
// id says all four (and `.retry<k>`), the record is the TrialRecord, and a runner that throws leaves
// an `internal` record in trials.jsonl. `kgate run`, `check`, `calibrate`, triage's task units,
// exam references and the probes' sandboxed cells run their trials through it.
import { type Condition, type Outcome, outcomeOf, type TrialRecord } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import {
  type EngineUnit,
  type RunPlace,
  UnitEngine,
  type UnitEngineOptions,
  type UnitEvents,
  type UnitKind,
} from "./engine.ts";
import { trialId } from "./ids.ts";
import { crashRecordOf } from "./record-parts.ts";

/** Who ran a trial, as records and limits need it. */
export interface EngineAgentInfo {
  name: string;
  digest: string;
  harness: string;
  model: string | null;
  /** Trials of one model provider share its concurrency limit (`anthropic`, `openai`, `local`). */
  provider: string;
  /** The exact harness that runs (provenance). */
  revision?: string | null;
}

/** One trial the engine is asked for. */
export interface TrialSlot extends EngineUnit {
  task: LoadedTask;
  condition: Condition;
  agent: EngineAgentInfo;
  index: number;
  /** Where this slot's attempts are recorded, when not in the engine's run (triage's live plans). */
  place?: RunPlace;
}

/** One attempt of a slot, as a runner receives it (a caller's slot type may carry more, e.g. its cell). */
export type TrialJob<S extends TrialSlot = TrialSlot> = S &
  RunPlace & {
    trialId: string;
    attempt: number;
  };

/** Runs one attempt and returns its record (written to the run's trials.jsonl). Should not throw. */
export type TrialRunner<S extends TrialSlot = TrialSlot> = (
  job: TrialJob<S>,
  signal: AbortSignal,
) => Promise<TrialRecord>;

export type EngineEvents<S extends TrialSlot = TrialSlot> = UnitEvents<TrialJob<S>, TrialRecord>;

export type EngineOptions<S extends TrialSlot = TrialSlot> = Omit<
  UnitEngineOptions<S, TrialJob<S>, TrialRecord>,
  "kind"
>;

/** Trials as units of the engine. */
function trialKind<S extends TrialSlot>(): UnitKind<S, TrialJob<S>, TrialRecord> {
  return {
    job: (slot, attempt, run) => ({
      ...slot,
      ...(slot.place ?? run),
      attempt,
      trialId: trialId(slot.task.id, slot.condition, slot.agent.name, slot.index, attempt),
    }),
    providerOf: (slot) => slot.agent.provider,
    errorOf: (record) => record.error,
    outcomeOf: (record): Outcome => outcomeOf(record),
    crashed: (job, err) => {
      const { name, digest, harness, model } = job.agent;
      return crashRecordOf(job, "sandbox", { name, digest, harness, model }, err);
    },
  };
}

export class TrialEngine<S extends TrialSlot = TrialSlot> extends UnitEngine<S, TrialJob<S>, TrialRecord> {
  constructor(o: EngineOptions<S>) {
    super({ ...o, kind: trialKind<S>() });
  }
}
