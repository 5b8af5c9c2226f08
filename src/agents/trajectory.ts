// Trajectories: a sink that timestamps events (kept in memory, appended to a JSONL file), a reader,
// and the facts derived from them: did the agent open the artefact (+A)? did its canary leak (-A)?
import { appendFileSync, readFileSync } from "node:fs";
import type { Condition } from "../task/index.ts";
import type { TrajectoryEvent, TrajectorySink } from "./types.ts";

export class TrajectoryRecorder implements TrajectorySink {
  readonly events: TrajectoryEvent[] = [];

  /** `file`: a JSONL file each event is appended to as it happens (a crash keeps what came before). */
  constructor(
    private readonly file?: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  append(event: Omit<TrajectoryEvent, "at">): void {
    const full = { at: this.now().toISOString(), ...event } as TrajectoryEvent;
    this.events.push(full);
    if (this.file) appendFileSync(this.file, `${JSON.stringify(full)}\n`);
  }
}

export class TrajectoryFileError extends Error {
  override name = "TrajectoryFileError";
}

/** Reads a JSONL trajectory; a bad line is an error naming the file and line. */
export function readTrajectory(file: string): TrajectoryEvent[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const events: TrajectoryEvent[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new TrajectoryFileError(`${file}: line ${i + 1}: invalid JSON: ${(err as Error).message}`);
    }
    const e = value as Partial<TrajectoryEvent> | null;
    if (!e || typeof e.at !== "string" || typeof e.type !== "string") {
      throw new TrajectoryFileError(`${file}: line ${i + 1}: not a trajectory event (needs "at" and "type")`);
    }
    events.push(e as TrajectoryEvent);
  });
  return events;
}

export interface FactInputs {
  condition: Condition;
  /** The artefact's path in the sandbox and any other place it was delivered (a skill folder). */
  artefactPaths: string[];
  /** The text placed under +A / variant (to recognise its lines in tool results). */
  artefactText: string | null;
  canary: string | null;
  /** Bytes of the collected outputs, searched for the canary under -A. */
  outputs?: Buffer[];
}

export interface TrajectoryFacts {
  artefactOpened: boolean | null;
  canaryLeak: boolean | null;
}

/** Lines of the artefact long enough to be recognised, not common boilerplate. */
function distinctiveLines(text: string): string[] {
  return [...new Set(text.split("\n").map((l) => l.trim()))].filter((l) => l.length >= 40);
}

function contentOf(event: TrajectoryEvent): string {
  const { at: _at, ...rest } = event;
  return JSON.stringify(rest);
}

export function deriveTrajectoryFacts(
  events: readonly TrajectoryEvent[],
  input: FactInputs,
): TrajectoryFacts {
  const canary = input.canary?.toLowerCase() ?? null;
  if (input.condition === "-A") {
    if (!canary) return { artefactOpened: null, canaryLeak: null };
    const inEvents = events.some((e) => contentOf(e).toLowerCase().includes(canary));
    const inOutputs = (input.outputs ?? []).some((b) => b.toString("utf8").toLowerCase().includes(canary));
    return { artefactOpened: null, canaryLeak: inEvents || inOutputs };
  }
  const lines = input.artefactText ? distinctiveLines(input.artefactText) : [];
  const opened = events.some((e) => {
    if (e.type === "tool-call") {
      const text = JSON.stringify(e.input ?? e);
      return input.artefactPaths.some((p) => text.includes(p));
    }
    if (e.type === "tool-result") {
      const text = typeof e.output === "string" ? e.output : JSON.stringify(e.output ?? "");
      if (canary && text.toLowerCase().includes(canary)) return true;
      return lines.some((l) => text.includes(l));
    }
    return false;
  });
  return { artefactOpened: opened, canaryLeak: null };
}
