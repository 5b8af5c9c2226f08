// Notes the relay counts instead of writing one per request: a trial that sends thousands of requests
// the relay refuses (a wrong path or method, an over-cap body, past its in-flight share, a refused
// field) or forwards without narrating (count_tokens, models) writes the first of each kind in a
// minute as it happens and the rest of that minute as one summarising event (`count`, `summary`), so
// the trajectory grows with the minutes, not with the requests.
import type { TrajectoryEvent, TrajectorySink } from "../../record/index.ts";

/** The window one summarising event covers. */
export const NOTE_WINDOW_MS = 60_000;

type Note = Omit<TrajectoryEvent, "at">;

interface Window {
  opened: number;
  /** Notes since the window's first, not yet written. */
  pending: number;
  /** The latest of them (its detail goes into the summary). */
  last: Note;
}

export class CountedNotes {
  private readonly windows = new Map<string, Window>();
  /** Notes of each kind over the session. */
  readonly totals = new Map<string, number>();

  constructor(
    private readonly sink: TrajectorySink,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one note of `kind` (e.g. `relay-limit:body-size`); returns true when its event was
   * written now (the first of its window), so that a caller logs only those.
   */
  count(kind: string, note: Note): boolean {
    this.totals.set(kind, (this.totals.get(kind) ?? 0) + 1);
    const at = this.now();
    const window = this.windows.get(kind);
    if (window && at - window.opened < NOTE_WINDOW_MS) {
      window.pending += 1;
      window.last = note;
      return false;
    }
    if (window) this.write(window);
    this.windows.set(kind, { opened: at, pending: 0, last: note });
    this.sink.append({ ...note, count: 1 });
    return true;
  }

  /** Writes what every open window still holds (at the end of the session). */
  flush(): void {
    for (const window of this.windows.values()) this.write(window);
  }

  private write(window: Window): void {
    if (window.pending === 0) return;
    this.sink.append({ ...window.last, count: window.pending, summary: true });
    window.pending = 0;
  }
}
