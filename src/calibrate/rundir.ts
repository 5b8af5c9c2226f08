// The run directory of a calibration: runs/<run>/plan.json, trials.jsonl (written by the trial
// runner), trajectories, the reports, and a lock file so that two processes never share a run.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { ownerAlive, ownerLabel } from "../common/index.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { formatProblem, parseJsonText, problemsFromZod } from "../task/index.ts";
import { DECISION_SETTINGS, decisionSettingsDigest, Plan } from "./plan.ts";

export interface RunDir {
  id: string;
  dir: string;
  /** The run directory as shown in messages (project-relative when inside the project). */
  shown: string;
  plan: string;
  trials: string;
  lock: string;
}

export function runDir(paths: ProjectPaths, idOrPath: string): RunDir {
  const direct = path.resolve(idOrPath);
  const dir =
    idOrPath.includes("/") || (existsSync(direct) && !existsSync(path.join(paths.runs, idOrPath)))
      ? direct
      : path.join(paths.runs, idOrPath);
  const rel = relativeToProject(paths, dir);
  return {
    id: path.basename(dir),
    dir,
    shown: rel.startsWith("..") ? dir : rel,
    plan: path.join(dir, "plan.json"),
    trials: path.join(dir, "trials.jsonl"),
    lock: path.join(dir, "calibrate.lock"),
  };
}

/** Writes a file whole or not at all (temporary file + rename). */
export function writeFileAtomic(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

export function writePlan(run: RunDir, plan: Plan): void {
  if (existsSync(run.plan))
    throw new Error(`${run.shown} already holds a plan; resume it with --resume ${run.id}`);
  writeFileAtomic(run.plan, `${JSON.stringify(plan, null, 2)}\n`);
}

/** Rewrites an existing plan with a new cost ceiling (the only field a resume may change). */
export function rewritePlanCeiling(run: RunDir, plan: Plan): void {
  writeFileAtomic(run.plan, `${JSON.stringify(plan, null, 2)}\n`);
}

/** Reads and validates plan.json; the error names the file and the field. */
export function readPlan(run: RunDir): Plan {
  const file = `${run.shown}/plan.json`;
  if (!existsSync(run.plan)) {
    throw new Error(
      existsSync(run.dir) ? `${file} is missing: not a calibration run` : `no run directory ${run.shown}`,
    );
  }
  const json = parseJsonText(file, readFileSync(run.plan, "utf8"));
  if (!json.ok) throw new Error(formatProblem(json.problem));
  const parsed = Plan.safeParse(json.value);
  if (!parsed.success) throw new Error(problemsFromZod(file, parsed.error).map(formatProblem).join("\n"));
  const recorded = parsed.data.settingsDigest;
  const now = decisionSettingsDigest(parsed.data);
  if (recorded !== undefined && recorded !== now) {
    throw new Error(
      `${file}: settingsDigest: the plan's decision settings (${DECISION_SETTINGS.join(", ")}) no longer match ` +
        `the digest written with them (recorded ${recorded.slice(0, 12)}…, now ${now.slice(0, 12)}…): ` +
        "the plan was edited after the run started; restore it, or start a new run with the settings you want",
    );
  }
  return parsed.data;
}

const OWNER = /^[^/\s]+\/\d+\/\S+$/;

/** Creates the lock file only if none exists (O_EXCL): two processes can never both take it. */
function createLock(file: string, owner: string): boolean {
  try {
    const fd = openSync(file, "wx");
    try {
      writeSync(fd, `${owner}\n`);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
}

/**
 * Takes the run's lock, refusing while another live process holds it: the lock names its owner as
 * `<host>/<pid>/<process start time>`, so a dead owner whose pid was reused does not hold it, and an
 * owner on another host (a shared folder) always does. Returns the release.
 */
export function acquireLock(run: RunDir): () => void {
  const me = ownerLabel();
  for (let tries = 0; tries < 3; tries++) {
    if (createLock(run.lock, me)) return () => rmSync(run.lock, { force: true });
    let held = "";
    try {
      held = readFileSync(run.lock, "utf8").trim();
    } catch {
      continue; // released between our attempt and the read
    }
    if (held !== me && OWNER.test(held) && ownerAlive(held)) {
      const [host, pid] = held.split("/");
      throw new Error(
        `${run.shown} is being calibrated by process ${pid} on ${host}; wait for it or stop it first`,
      );
    }
    rmSync(run.lock, { force: true }); // a dead owner's lock (or an old-format one)
  }
  throw new Error(`${run.shown}: cannot take the lock ${run.lock}`);
}
