// The contamination probe: without the artefact, a configuration is asked to continue the
// artefact's first line and to state the task's private constants; a verbatim continuation, the
// canary GUID, or a gated constant stated right marks the task contaminated for that configuration.
import path from "node:path";
import { conversationBound } from "../cost/index.ts";
import {
  addUsage,
  FAILURE_KINDS,
  internalError,
  type TrialError,
  type TrialRecord,
  type Usage,
  ZERO_USAGE,
} from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import {
  converse,
  type EngineUnit,
  FileTrajectory,
  type RunPlace,
  trialBudget,
  UnitEngine,
  type UnitKind,
} from "../trial/index.ts";
import { loadVerifier, readEnvironment } from "../verify/index.ts";
import {
  conventionQuestion,
  type DeclaredConvention,
  declaredConventions,
  scoreConventions,
} from "./conventions.ts";
import { type ProbeWork, probeAdmit } from "./cost.ts";
import type { ProbeAgent } from "./models.ts";
import { appendProbeLine, type ConventionResult, type ProbeLine, readProbeLines } from "./probe-log.ts";
import type { ProbeRun, UnitsRun } from "./run.ts";

/** Words in a row a continuation must share with the artefact's private text to count as recalled. */
export const SHINGLE_WORDS = 10;

export const CANARY_SYSTEM = "Answer from memory; you have no tools and no files.";
export const CONTINUE_LEAD =
  "Continue this text, which is the first line of a document, with the lines that follow it:";
export const CONSTANTS_LEAD =
  "The task below refers to an established internal specification that is not shown here. From what you know of that specification, state the values it prescribes.";

export interface CanaryTrial {
  id: string;
  continuationHit: boolean;
  conventions: ConventionResult[];
  /** Gated conventions (artefact value != default) stated right. */
  constantHits: string[];
  error: TrialError | null;
  usage: Usage;
}

export interface CanaryReport {
  task: string;
  agent: { name: string; digest: string; model: string };
  trials: CanaryTrial[];
  /** A continuation or constant hit in any trial, or a -A record flagged with the canary. */
  contaminated: boolean;
  /** -A records of the same configuration flagged with the canary GUID (from the records given). */
  minusARecords: { leaked: number; runs: number } | null;
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+(?:[.,'-][\p{L}\p{N}]+)*/gu) ?? [];

function shingles(text: string): Set<string> {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i + SHINGLE_WORDS <= w.length; i++) out.add(w.slice(i, i + SHINGLE_WORDS).join(" "));
  return out;
}

/** The artefact's first line of content (HTML comments, such as the canary line, skipped). */
export function firstLine(artefact: string): string {
  const line = artefact
    .replace(/<!--[\s\S]*?-->/g, "")
    .split("\n")
    .find((l) => l.trim() !== "");
  return line?.trim() ?? "";
}

/** Shingles of the artefact beyond its first line that the instruction and environment do not hold. */
export function privateShingles(task: LoadedTask, publicTexts: readonly string[]): Set<string> {
  const text = task.artefact.bytes.toString("utf8").replace(/<!--[\s\S]*?-->/g, "");
  const first = firstLine(text);
  const rest = text.slice(text.indexOf(first) + first.length);
  const known = new Set(publicTexts.flatMap((t) => [...shingles(t)]));
  for (const s of shingles(first)) known.add(s);
  return new Set([...shingles(rest)].filter((s) => !known.has(s)));
}

/** Did a continuation reproduce private text of the artefact, or its canary GUID? */
export function continuationHit(reply: string, privateText: ReadonlySet<string>, canary?: string): boolean {
  if (canary && reply.toLowerCase().includes(canary)) return true;
  for (const s of shingles(reply)) if (privateText.has(s)) return true;
  return false;
}

/** Free answers for strings (no list of choices: naming a private value is the evidence). */
function freeForm(conventions: readonly DeclaredConvention[]): DeclaredConvention[] {
  return conventions.map((c) => ({ ...c, choices: null }));
}

export function minusACells(records: readonly TrialRecord[], task: string, agent: ProbeAgent["config"]) {
  const cell = records.filter(
    (r) =>
      r.task.id === task &&
      r.condition === "-A" &&
      r.agent.name === agent.name &&
      r.agent.digest === agent.digest,
  );
  if (cell.length === 0) return null;
  return { leaked: cell.filter((r) => r.canaryLeak === true).length, runs: cell.length };
}

/** One canary trial: an agent at an index (two one-turn conversations). */
interface CanarySlot extends EngineUnit {
  agent: ProbeAgent;
  index: number;
  bound: ProbeWork["bound"];
}
type CanaryJob = CanarySlot & RunPlace & { id: string; attempt: number };

const canaryId = (task: string, agent: string, index: number, attempt: number) =>
  `${task}.canary.${agent}.${index}${attempt > 1 ? `.retry${attempt - 1}` : ""}`;

/** A canary line's error counts like a trial's: only the taxonomy's uncounted kinds make it not done. */
const notDone = (line: ProbeLine) => line.error != null && !FAILURE_KINDS[line.error.kind].counted;

export interface CanaryResult extends UnitsRun<ProbeLine> {
  reports: CanaryReport[];
}

/** n canary trials per configuration through the engine; lines appended as they finish, reports read back. */
export async function canary(
  task: LoadedTask,
  agents: readonly ProbeAgent[],
  n: number,
  run: ProbeRun,
  records: readonly TrialRecord[] = [],
): Promise<CanaryResult> {
  const conventions = declaredConventions(await loadVerifier(task));
  const artefactText = task.artefact.bytes.toString("utf8");
  const publicTexts = [task.instruction.toString("utf8"), ...Object.values(readEnvironment(task))];
  const privateText = privateShingles(task, publicTexts);
  const continueTurn = `${CONTINUE_LEAD}\n\n${firstLine(artefactText)}\n`;
  const constantsTurn = `${CONSTANTS_LEAD}\n\n${task.instruction.toString("utf8")}\n\n---\n\n${conventionQuestion(freeForm(conventions), "The values:")}`;
  const lineOf = (job: CanaryJob, fields: Partial<ProbeLine>): ProbeLine => ({
    probe: "canary",
    trialId: job.id,
    index: job.index,
    attempt: job.attempt,
    task: task.id,
    agent: { name: job.agent.config.name, digest: job.agent.config.digest, model: job.agent.config.model },
    kgateVersion: run.kgateVersion,
    conventions: [],
    continuationHit: false,
    usage: ZERO_USAGE,
    error: null,
    ...fields,
  });
  const kind: UnitKind<CanarySlot, CanaryJob, ProbeLine> = {
    job: (slot, attempt, place) => ({
      ...slot,
      ...place,
      attempt,
      id: canaryId(task.id, slot.agent.config.name, slot.index, attempt),
    }),
    providerOf: (slot) => slot.agent.config.provider,
    errorOf: (line) => line.error ?? null,
    outcomeOf: (line) => (line.error && notDone(line) ? "infra" : "unverified"),
    crashed: (job, err) => {
      const line = lineOf(job, { error: internalError(err) });
      appendProbeLine(run.runDir, line);
      return line;
    },
  };
  const runner = async (job: CanaryJob, signal: AbortSignal): Promise<ProbeLine> => {
    const { config, model } = job.agent;
    // the trial's wall clock bounds the questions too, as it bounds every form of a trial
    const budget = trialBudget({ limits: task.spec.limits, agent: config, sandbox: false });
    const trajectory = new FileTrajectory(path.join(run.runDir, "canary", job.id, "trajectory.jsonl"));
    const ask = (turn: string) =>
      converse({
        config,
        model,
        system: CANARY_SYSTEM,
        turns: [turn],
        trajectory,
        timeoutSec: budget.wallClockSec,
        signal,
      });
    try {
      const continued = await ask(continueTurn);
      const stated = await ask(constantsTurn);
      const line = lineOf(job, {
        conventions: scoreConventions(conventions, stated.replies[0] ?? ""),
        continuationHit: continuationHit(continued.replies[0] ?? "", privateText, task.artefact.canary),
        usage: addUsage(continued.usage, stated.usage),
        error: continued.error ?? stated.error,
      });
      appendProbeLine(run.runDir, line);
      return line;
    } finally {
      trajectory.close();
    }
  };
  const latest = () => {
    const byUnit = new Map<string, ProbeLine>();
    for (const line of readProbeLines(run.runDir).records) {
      if (line.probe !== "canary" || line.task !== task.id) continue;
      const key = `${line.agent.name}|${line.index ?? line.trialId}`;
      if ((byUnit.get(key)?.attempt ?? 0) <= line.attempt) byUnit.set(key, line);
    }
    return byUnit;
  };
  const before = latest();
  const todo = agents.flatMap((agent) =>
    Array.from({ length: n }, (_, index) => ({ agent, index })).flatMap((slot) => {
      const last = before.get(`${agent.config.name}|${slot.index}`);
      if (last && !notDone(last)) return [];
      // two one-turn conversations at the configuration's output cap
      const { pricing, maxOutputTokens } = agent.config;
      const one = (turn: string) => conversationBound(pricing, maxOutputTokens, CANARY_SYSTEM, [turn]);
      const [a, b] = [one(continueTurn), one(constantsTurn)];
      const bound = {
        tokens: {
          input: a.tokens.input + b.tokens.input,
          output: a.tokens.output + b.tokens.output,
          cacheRead: 0,
          cacheWrite: 0,
        },
        usd: a.usd === null || b.usd === null ? null : a.usd + b.usd,
      };
      return [{ ...slot, previousAttempt: last?.attempt ?? 0, bound }];
    }),
  );
  const engine = new UnitEngine({
    runId: run.runId,
    runDir: run.runDir,
    kind,
    runner,
    concurrency: run.concurrency,
    providerLimits: run.providerLimits,
    retries: run.retries,
    signal: run.signal,
    admit: probeAdmit<CanaryJob, ProbeLine>(
      run.admit,
      (job) => ({ agent: job.agent, bound: job.bound, group: "" }),
      (line) => line.usage?.costUsd ?? null,
    ),
  });
  await engine.runAll(todo);
  const after = latest();
  const reports = agents.map(({ config }) => {
    const agent = { name: config.name, digest: config.digest, model: config.model };
    const trials: CanaryTrial[] = Array.from({ length: n }, (_, index) =>
      after.get(`${config.name}|${index}`),
    )
      .filter((l): l is ProbeLine => l !== undefined)
      .map((l) => {
        const hits = l.conventions.filter((s) => s.gated && s.correct).map((s) => s.name);
        return {
          id: l.trialId,
          continuationHit: l.continuationHit ?? false,
          conventions: l.conventions,
          constantHits: hits,
          error: l.error ?? null,
          usage: l.usage ?? ZERO_USAGE,
        };
      });
    const minusARecords = minusACells(records, task.id, config);
    return {
      task: task.id,
      agent,
      trials,
      contaminated:
        trials.some((t) => t.continuationHit || t.constantHits.length > 0) ||
        (minusARecords?.leaked ?? 0) > 0,
      minusARecords,
    };
  });
  return { reports, internal: engine.internal, cancelled: engine.cancelled };
}
