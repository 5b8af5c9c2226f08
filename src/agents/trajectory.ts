// Trajectories as agents see them: an in-memory recorder in front of the trial's sink, a reader of
// trajectory files, and a fact derived from the events: did the agent open the artefact (+A)?
import { readFileSync } from "node:fs";
import type { TrajectoryEvent, TrajectorySink } from "../model/index.ts";

/** Keeps every event in memory (with its timestamp) and passes it on to another sink, if any. */
export class TrajectoryRecorder implements TrajectorySink {
  readonly events: TrajectoryEvent[] = [];

  constructor(
    private readonly next?: TrajectorySink,
    private readonly now: () => Date = () => new Date(),
  ) {}

  append(event: Omit<TrajectoryEvent, "at">): void {
    this.events.push({ at: this.now().toISOString(), ...event } as TrajectoryEvent);
    this.next?.append(event);
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

export interface ArtefactTrace {
  /** The artefact's path in the sandbox and any other place it was delivered (a skill folder). */
  paths: string[];
  /** Skill names it was installed under (a `Skill` tool call naming one loads it). */
  skills?: string[];
  /** The text placed under +A / variant, to recognise its lines in tool results. */
  text: string;
  canary: string | null;
}

/** Lines of the artefact long enough to be recognised, not common boilerplate. */
function distinctiveLines(text: string): string[] {
  return [...new Set(text.split("\n").map((l) => l.trim()))].filter((l) => l.length >= 40);
}

/**
 * Did the agent open the artefact? True when a tool call names one of its paths or loads its skill,
 * or a tool result (or content the harness injected after a skill load) shows its canary or one of
 * its distinctive lines (read by cat, grep, a skill loader, ...).
 */
export function artefactOpened(events: readonly TrajectoryEvent[], trace: ArtefactTrace): boolean {
  const canary = trace.canary?.toLowerCase() ?? null;
  const lines = distinctiveLines(trace.text);
  return events.some((e) => {
    if (e.type === "tool-call") {
      const input = (e.input ?? {}) as Record<string, unknown>;
      if (e.name === "Skill" && trace.skills?.includes(String(input.skill))) return true;
      const text = JSON.stringify(e.input ?? e);
      return trace.paths.some((p) => text.includes(p));
    }
    const shown = e.type === "tool-result" ? e.output : e.kind === "harness-context" ? e.text : undefined;
    if (shown !== undefined) {
      const text = typeof shown === "string" ? shown : JSON.stringify(shown);
      if (canary && text.toLowerCase().includes(canary)) return true;
      return lines.some((l) => text.includes(l));
    }
    return false;
  });
}
