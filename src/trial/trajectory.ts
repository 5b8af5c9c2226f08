// The trajectory of one trial as JSON lines beside its record, written as events arrive.
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TrajectoryEvent, TrajectorySink } from "../agents/types.ts";

export class FileTrajectory implements TrajectorySink {
  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    appendFileSync(file, "");
  }

  append(event: Omit<TrajectoryEvent, "at">): void {
    appendFileSync(this.file, `${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`);
  }

  text(): string {
    return readFileSync(this.file, "utf8");
  }
}
