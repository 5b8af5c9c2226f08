// Names of runs and trials: run ids sort by time; trial ids say task, condition, agent and index.
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { ProjectPaths } from "../project.ts";
import { type Condition, variantOf } from "../task/index.ts";

/**
 * `20260130-142301-a1b2`: UTC time of creation plus 4 random hex digits, sortable by time; with a
 * prefix, `<prefix>-20260130-142301-a1b2` (a calibration's `cal-`, a check's `check-`).
 */
export function newRunId(prefix?: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const id = `${stamp}-${randomBytes(2).toString("hex")}`;
  return prefix === undefined ? id : `${prefix}-${id}`;
}

/** A file-name-safe condition: `with-A`, `without-A`, `variant-<name>`. */
function conditionSlug(condition: Condition): string {
  if (condition === "+A") return "with-A";
  if (condition === "-A") return "without-A";
  return `variant-${variantOf(condition)}`;
}

/** `<task>.<condition>.<agent>.<index>`, plus `.retry<k>` for the k-th retry of an infra failure. */
export function trialId(
  taskId: string,
  condition: Condition,
  agent: string,
  index: number,
  attempt = 1,
): string {
  const base = `${taskId}.${conditionSlug(condition)}.${agent}.${index}`;
  return attempt > 1 ? `${base}.retry${attempt - 1}` : base;
}

export function runDirOf(paths: ProjectPaths, runId: string): string {
  return path.join(paths.runs, runId);
}

/** The folder of one trial inside its run: trajectory.jsonl and outputs/. */
export function trialDirOf(runDir: string, id: string): string {
  return path.join(runDir, "trials", id);
}
