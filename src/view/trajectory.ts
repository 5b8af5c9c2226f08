// A trajectory file read for display: attacker-controlled (written while the agent ran), so it is
// read up to a byte cap, parsed line by line, every field checked and every text cut to a size;
// a bad line becomes a worded problem, never an exception. A tool call and its result become one
// event (the call's input with its output), so no call stands alone as an empty row.
import { closeSync, openSync, readSync } from "node:fs";
import type { ViewEvent, ViewProbe } from "./schema.ts";

export const TRAJECTORY_BYTE_CAP = 4 * 1024 * 1024;
export const EVENT_TEXT_CAP = 16 * 1024;
export const EVENT_CAP = 5000;

export interface ReadTrajectory {
  events: ViewEvent[];
  probes: ViewProbe[];
  problems: string[];
}

/** At most `cap` bytes of a file, and whether there was more. */
function readCapped(file: string, cap: number): { text: string; cut: boolean } {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(cap + 1);
    let size = 0;
    for (;;) {
      const n = readSync(fd, buffer, size, buffer.length - size, null);
      if (n === 0) break;
      size += n;
      if (size === buffer.length) break;
    }
    const cut = size > cap;
    return { text: buffer.subarray(0, Math.min(size, cap)).toString("utf8"), cut };
  } finally {
    closeSync(fd);
  }
}

export function capText(text: string, cap = EVENT_TEXT_CAP): string {
  return text.length > cap
    ? `${text.slice(0, cap)}\n… (${text.length - cap} more characters not shown)`
    : text;
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

function shown(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  try {
    return JSON.stringify(v, null, 2) ?? "";
  } catch {
    return String(v);
  }
}

/** The readable text of one event: what the model said, the call's input, the tool's output, ... */
function textOf(e: Record<string, unknown>): string {
  switch (e.type) {
    case "model":
      return shown(e.text);
    case "tool-call": {
      const input = e.input;
      const empty =
        input === undefined ||
        input === null ||
        (typeof input === "object" && !Array.isArray(input) && Object.keys(input).length === 0);
      return empty ? "" : shown(input);
    }
    case "tool-result":
      return shown(e.output);
    case "error":
      return shown(e.message ?? e);
    default: {
      const { at: _at, type: _type, kind: _kind, ...rest } = e;
      return typeof e.text === "string" ? e.text : shown(rest);
    }
  }
}

function eventOf(e: Record<string, unknown>): ViewEvent {
  return {
    at: str(e.at) ?? "",
    type: str(e.type) ?? "unknown",
    turn: typeof e.turn === "number" && Number.isFinite(e.turn) ? e.turn : null,
    name: str(e.name) ?? str(e.kind),
    text: capText(textOf(e)),
    isError: e.isError === true || e.type === "error",
    result: null,
  };
}

/**
 * Each tool result joined to its call: the call with the same id, or else the earliest call of
 * the same tool and turn still without a result. A result without a call stays an event of its own.
 */
function joinResults(events: ViewEvent[], ids: ReadonlyMap<ViewEvent, string | null>): ViewEvent[] {
  const open: ViewEvent[] = [];
  const out: ViewEvent[] = [];
  for (const e of events) {
    if (e.type === "tool-call") {
      open.push(e);
      out.push(e);
      continue;
    }
    if (e.type === "tool-result") {
      const id = ids.get(e);
      const at = open.findIndex((c) =>
        id && ids.get(c) ? ids.get(c) === id : c.name === e.name && c.turn === e.turn,
      );
      if (at >= 0) {
        open.splice(at, 1)[0]!.result = { text: e.text, isError: e.isError };
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

/** Reads a trajectory for the viewer; `shownAs` names the file in problems. */
export function readTrajectoryForView(file: string, shownAs: string): ReadTrajectory {
  const out: ReadTrajectory = { events: [], probes: [], problems: [] };
  let read: { text: string; cut: boolean };
  try {
    read = readCapped(file, TRAJECTORY_BYTE_CAP);
  } catch (err) {
    out.problems.push(
      `${shownAs}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
    return out;
  }
  const lines = read.text.split("\n");
  if (read.cut) {
    lines.pop();
    out.problems.push(`${shownAs}: only the first ${TRAJECTORY_BYTE_CAP} bytes are shown`);
  }
  let full = false;
  const ids = new Map<ViewEvent, string | null>();
  lines.forEach((line, i) => {
    if (!line.trim() || full) return;
    if (out.events.length >= EVENT_CAP) {
      full = true;
      out.problems.push(`${shownAs}: only the first ${EVENT_CAP} events are shown`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      out.problems.push(`${shownAs}: line ${i + 1}: not JSON, left out`);
      return;
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      out.problems.push(`${shownAs}: line ${i + 1}: not a trajectory event, left out`);
      return;
    }
    const e = value as Record<string, unknown>;
    if (e.type === "note" && e.kind === "probe") {
      out.probes.push({ question: capText(shown(e.question)), answer: capText(shown(e.answer)) });
    }
    const event = eventOf(e);
    ids.set(event, str(e.id));
    out.events.push(event);
  });
  out.events = joinResults(out.events, ids);
  return out;
}
