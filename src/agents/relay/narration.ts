// The trajectory events a relay session derives from the requests of agent turns (the harness's system
// prompt once, the new user-turn texts, the new tool results), in bounded memory: what was seen is
// kept as hashes, at most MAX_SEEN of each, and at most NARRATION_BYTES of text is narrated per
// session; reaching either cap is one `relay-memory-cap` note, after which nothing more is narrated.
import { createHash } from "node:crypto";
import type { TrajectorySink } from "../../record/index.ts";
import { capText } from "../tools.ts";
import type { ToolResultSeen } from "./wire.ts";

/** New user texts recorded per call, at most, in one bounded event. */
export const CONTEXT_CAP = 64 * 1024;
/** New tool results recorded per call, at most; the rest are counted in one note. */
const RESULTS_PER_CALL = 64;
const TOOL_OUTPUT_CAP = 16 * 1024;
const SYSTEM_CAP = 64 * 1024;
/** A tool-use id is the harness's string: kept to this many characters in an event. */
const ID_CAP = 256;
/** Distinct user texts and tool-result ids remembered per session (as 16-byte hashes). */
export const MAX_SEEN = 10_000;
/** Text narrated per session over all its events (50 turns of a busy harness: about 3 MiB). */
export const NARRATION_BYTES = 8 * 1024 * 1024;

/** The first 128 bits of the text's sha256, as a 16-character string. */
const digest = (text: string) => createHash("sha256").update(text).digest().toString("latin1", 0, 16);

/** A set of hashes that stops growing at MAX_SEEN. */
class SeenSet {
  private readonly hashes = new Set<string>();

  get size(): number {
    return this.hashes.size;
  }

  get full(): boolean {
    return this.hashes.size >= MAX_SEEN;
  }

  /** True when `text` is new (and now remembered); false when seen before or the set is full. */
  add(text: string): boolean {
    const h = digest(text);
    if (this.hashes.has(h) || this.full) return false;
    this.hashes.add(h);
    return true;
  }
}

export class Narrator {
  private readonly texts = new SeenSet();
  private readonly results = new SeenSet();
  private systemRecorded = false;
  /** Text bytes narrated so far (context, tool outputs, system prompt). */
  narrated = 0;
  /** The caps reached (each noted once). */
  private readonly capped = new Set<string>();

  constructor(private readonly sink: TrajectorySink) {}

  /** Remembered hashes, for the session's bounds. */
  get seen(): { texts: number; results: number } {
    return { texts: this.texts.size, results: this.results.size };
  }

  /** Records what is new in an agent-turn request: system prompt (once), user-turn text, tool results. */
  request(turn: number, system: string, userTexts: string[], results: ToolResultSeen[]): void {
    if (!this.systemRecorded && system && this.room()) {
      this.systemRecorded = true;
      const text = capText(system, SYSTEM_CAP).text;
      this.narrated += Buffer.byteLength(text);
      this.sink.append({ type: "note", kind: "harness-system-prompt", system: text });
    }
    this.context(turn, userTexts);
    this.toolResults(turn, results);
  }

  /** One bounded event per call, however many texts the request carries. */
  private context(turn: number, userTexts: string[]): void {
    const fresh: string[] = [];
    let bytes = 0;
    let omitted = 0;
    for (const text of userTexts) {
      if (this.texts.full) this.noteCap("seen-texts", MAX_SEEN);
      if (!this.texts.add(text)) continue;
      if (bytes < CONTEXT_CAP) {
        fresh.push(text);
        bytes += Buffer.byteLength(text);
      } else omitted += 1;
    }
    if (fresh.length === 0 || !this.room()) return;
    const joined = capText(fresh.join("\n\n"), CONTEXT_CAP);
    this.narrated += Buffer.byteLength(joined.text);
    this.sink.append({
      type: "note",
      kind: "harness-context",
      turn,
      text: joined.text,
      texts: fresh.length + omitted,
      truncated: joined.truncated || omitted > 0,
    });
  }

  private toolResults(turn: number, results: ToolResultSeen[]): void {
    let omitted = 0;
    let shown = 0;
    for (const r of results) {
      if (this.results.full) this.noteCap("seen-results", MAX_SEEN);
      if (!this.results.add(r.id)) continue;
      if (shown >= RESULTS_PER_CALL || !this.room()) {
        omitted += 1;
        continue;
      }
      shown += 1;
      const output = capText(r.output, TOOL_OUTPUT_CAP).text;
      this.narrated += Buffer.byteLength(output);
      this.sink.append({
        type: "tool-result",
        turn,
        id: r.id.slice(0, ID_CAP),
        isError: r.isError,
        output,
        truncated: Buffer.byteLength(r.output) > TOOL_OUTPUT_CAP,
      });
    }
    if (omitted > 0) this.sink.append({ type: "note", kind: "tool-results-omitted", turn, count: omitted });
  }

  /** Is there narration budget left? Noted once when there is not. */
  private room(): boolean {
    if (this.narrated < NARRATION_BYTES) return true;
    this.noteCap("narration", NARRATION_BYTES);
    return false;
  }

  private noteCap(what: string, cap: number): void {
    if (this.capped.has(what)) return;
    this.capped.add(what);
    this.sink.append({ type: "note", kind: "relay-memory-cap", what, cap });
  }
}
