// Trajectory events (one JSON line each beside a record), versioned, and the sink agents append to.
import { z } from "zod";

export const TrajectoryEventType = z.enum(["model", "tool-call", "tool-result", "note", "error"]);
export type TrajectoryEventType = z.infer<typeof TrajectoryEventType>;

/** One event: a model turn, a tool call and its (capped) output, a note, an error; more fields by type. */
export const TrajectoryEvent = z.looseObject({
  at: z.string(),
  type: TrajectoryEventType,
  /** An event format's version; none is written yet (every event is version 1). */
  v: z.number().int().positive().optional(),
});
export type TrajectoryEvent = z.infer<typeof TrajectoryEvent> & Record<string, unknown>;

export interface TrajectorySink {
  append(event: Omit<TrajectoryEvent, "at">): void;
}
