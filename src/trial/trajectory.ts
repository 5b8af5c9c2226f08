// The trajectory of one trial as JSON lines beside its record, written as events arrive through one
// descriptor held open for the trial; a failed write is kept, so the trial can say its evidence is incomplete.
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import path from "node:path";
import type { TrajectoryEvent, TrajectorySink } from "../record/index.ts";

export class FileTrajectory implements TrajectorySink {
  private fd: number | null;
  /** The first write that failed (disk full, descriptor gone), or null. */
  failure: Error | null = null;

  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.fd = openSync(file, "a");
  }

  append(event: Omit<TrajectoryEvent, "at">): void {
    if (this.fd === null) return; // events after close (an abandoned agent) are not the trial's
    try {
      writeSync(this.fd, `${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`);
    } catch (err) {
      this.failure ??= err as Error;
    }
  }

  text(): string {
    return readFileSync(this.file, "utf8");
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
