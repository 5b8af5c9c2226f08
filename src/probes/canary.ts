// The contamination probe: without the artefact, a configuration is asked to continue the
// artefact's first line and to state the task's private constants; a verbatim continuation, the
// canary GUID, or a gated constant stated right marks the task contaminated for that configuration.
import path from "node:path";
import type { TrialRecord, Usage } from "../model/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { FileTrajectory } from "../trial/index.ts";
import { loadVerifier, readEnvironment } from "../verify/index.ts";
import {
  conventionQuestion,
  type DeclaredConvention,
  declaredConventions,
  scoreConventions,
} from "./conventions.ts";
import { converse } from "./converse.ts";
import type { ProbeAgent } from "./models.ts";
import { appendProbeLine, type ConventionResult } from "./probe-log.ts";
import type { ProbeRun } from "./recite.ts";

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
  error: string | null;
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

/** n canary trials per configuration (two one-turn conversations each); lines appended as they finish. */
export async function canary(
  task: LoadedTask,
  agents: readonly ProbeAgent[],
  n: number,
  run: ProbeRun,
  records: readonly TrialRecord[] = [],
): Promise<CanaryReport[]> {
  const conventions = declaredConventions(await loadVerifier(task));
  const artefactText = task.artefact.bytes.toString("utf8");
  const publicTexts = [task.instruction.toString("utf8"), ...Object.values(readEnvironment(task))];
  const privateText = privateShingles(task, publicTexts);
  const continueTurn = `${CONTINUE_LEAD}\n\n${firstLine(artefactText)}\n`;
  const constantsTurn = `${CONSTANTS_LEAD}\n\n${task.instruction.toString("utf8")}\n\n---\n\n${conventionQuestion(freeForm(conventions), "The values:")}`;
  const reports: CanaryReport[] = [];
  for (const { config, model } of agents) {
    const agent = { name: config.name, digest: config.digest, model: config.model };
    const trials: CanaryTrial[] = [];
    for (let index = 0; index < n; index++) {
      const id = `${task.id}.canary.${config.name}.${index}`;
      const trajectory = new FileTrajectory(path.join(run.runDir, "canary", id, "trajectory.jsonl"));
      const ask = (turn: string) =>
        converse({
          config,
          model,
          system: CANARY_SYSTEM,
          turns: [turn],
          trajectory,
          timeoutSec: config.timeoutSec,
          signal: run.signal,
        });
      const continued = await ask(continueTurn);
      const stated = await ask(constantsTurn);
      const scores = scoreConventions(conventions, stated.replies[0] ?? "");
      const hit = continuationHit(continued.replies[0] ?? "", privateText, task.artefact.canary);
      const usage = sumUsage(continued.usage, stated.usage);
      const error = continued.error ?? stated.error;
      appendProbeLine(run.runDir, {
        probe: "canary",
        trialId: id,
        task: task.id,
        agent,
        kgateVersion: run.kgateVersion,
        conventions: scores,
        continuationHit: hit,
        usage,
        error,
      });
      trials.push({
        id,
        continuationHit: hit,
        conventions: scores,
        constantHits: scores.filter((s) => s.gated && s.correct).map((s) => s.name),
        error: error ? `${error.owner}/${error.kind}: ${error.message}` : null,
        usage,
      });
    }
    const minusARecords = minusACells(records, task.id, config);
    reports.push({
      task: task.id,
      agent,
      trials,
      contaminated:
        trials.some((t) => t.continuationHit || t.constantHits.length > 0) ||
        (minusARecords?.leaked ?? 0) > 0,
      minusARecords,
    });
  }
  return reports;
}

function sumUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    modelCalls: a.modelCalls + b.modelCalls,
    costUsd:
      a.costUsd === null || b.costUsd === null ? null : Math.round((a.costUsd + b.costUsd) * 1e6) / 1e6,
  };
}
