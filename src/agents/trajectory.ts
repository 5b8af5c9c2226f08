// Trajectories as agents see them: an in-memory recorder in front of the trial's sink, a reader of
// trajectory files, and a fact derived from the events: did the agent open the artefact (+A)?
import { readJsonLines } from "../common/index.ts";
import { TrajectoryEvent, type TrajectorySink } from "../record/index.ts";

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

export interface ReadTrajectory {
  events: TrajectoryEvent[];
  /** Lines that could not be read (a torn last line of a killed process, a bad event), by number. */
  problems: string[];
}

/** Reads a JSONL trajectory, keeping every good event; each bad line is a problem naming file and line. */
export function readTrajectory(file: string): ReadTrajectory {
  const { records, problems } = readJsonLines(
    file,
    TrajectoryEvent,
    "trajectory event",
    () => 'not a trajectory event (needs "at" and a known "type")',
  );
  return { events: records, problems: problems.map((p) => `${p.file}: line ${p.line}: ${p.message}`) };
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
