// The CLI's verbs, one registration each (its arguments, options and help): registerVerbs adds them
// to the program in the order `kgate --help` lists them. Only the registrations are here: each verb's
// behaviour is its module in src/commands/, imported by src/cli.ts when that verb runs.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";
import { registerAgents } from "./agents.ts";
import { registerAudit } from "./audit.ts";
import { registerCalibrate } from "./calibrate.ts";
import { registerCheck } from "./check.ts";
import { registerExam } from "./exam.ts";
import { registerExport } from "./export.ts";
import { registerHook } from "./hook.ts";
import { registerImport } from "./import.ts";
import { registerList } from "./list.ts";
import { registerMonitor } from "./monitor.ts";
import { registerNew } from "./new.ts";
import { registerProbe } from "./probe.ts";
import { registerReport } from "./report.ts";
import { registerRun } from "./run.ts";
import { registerSandbox } from "./sandbox.ts";
import { registerShow } from "./show.ts";
import { registerTriage } from "./triage.ts";
import { registerView } from "./view.ts";

export type { ActionFor } from "./action.ts";

/** Every verb on `program`; `score` runs `triage score` (its options merge with triage's own). */
export function registerVerbs(
  program: Command,
  action: ActionFor,
  score: (command: Command) => Promise<void>,
): void {
  for (const register of [
    registerList,
    registerNew,
    registerRun,
    registerAgents,
    registerShow,
    registerSandbox,
    registerCheck,
    registerAudit,
    registerHook,
    registerCalibrate,
    registerExam,
    registerReport,
    registerProbe,
    registerExport,
    registerImport,
    registerMonitor,
  ])
    register(program, action);
  registerTriage(program, action, score);
  registerView(program, action);
}
