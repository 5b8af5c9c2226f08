// Checks in the real sandbox: the oracle passes under +A and the noop agent fails under -A. Each is
// one trial through the trial engine, verified on the host and recorded in runs/<run-id>/.
import { type Agent, noopAgent, oracleAgent } from "../agents/index.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { outcomeOf, type TrialRecord, type Verdict } from "../record/index.ts";
import {
  agentInfoOf,
  defaultVerify,
  newRunId,
  openSandboxRunner,
  runDirOf,
  type SandboxRunner,
  TrialEngine,
  trialsFileOf,
} from "../trial/index.ts";
import type { CheckContext, CheckStep, SandboxCheckAgent, SandboxSession, StepOutcome } from "./types.ts";
import { failureText } from "./verdict-text.ts";

const AGENTS: Record<SandboxCheckAgent, Agent> = { oracle: oracleAgent(), noop: noopAgent() };

export function sandboxSession(
  paths: ProjectPaths,
  options: { signal?: AbortSignal; progress?: (line: string) => void; concurrency: number; runId?: string },
): SandboxSession {
  const runId = options.runId ?? newRunId("check");
  const runDir = runDirOf(paths, runId);
  let opened: Promise<{ sandbox: SandboxRunner; engine: TrialEngine }> | undefined;
  let engineSeen: TrialEngine | undefined;
  const open = () => {
    opened ??= openSandboxRunner({
      paths,
      agents: Object.values(AGENTS),
      log: options.progress,
      // a judge whose key is not set is skipped (its criteria left out): judge-calibration says so
      verify: defaultVerify(paths, { skipUnavailableJudges: true }),
    }).then((sandbox) => ({
      sandbox,
      engine: new TrialEngine({
        runId,
        runDir,
        runner: sandbox.runner,
        // One trial per task in flight: the command checks `concurrency` tasks side by side.
        concurrency: options.concurrency,
        signal: options.signal,
      }),
    }));
    return opened;
  };
  return {
    paths,
    runId,
    runDir,
    async trial(context, condition, name) {
      let engine: TrialEngine;
      try {
        engine = (await open()).engine;
        engineSeen = engine;
      } catch (err) {
        return `the sandbox is not available: ${(err as Error).message} (run \`kgate sandbox doctor\`)`;
      }
      context.progress(`${context.id}: ${name} under ${condition} in the sandbox`);
      const slot = { task: context.task!, condition, agent: agentInfoOf(AGENTS[name]), index: 0 };
      return (await engine.run(slot)) ?? "cancelled before it started";
    },
    internal: () => engineSeen?.internal ?? [],
    async close() {
      const done = await opened?.catch(() => undefined);
      await done?.sandbox.close();
    },
  };
}

/** A note naming judge criteria a check's trial skipped (their judge's key is not set), or "". */
export function skippedJudges(verdict: Verdict): string {
  const skipped = verdict.criteria.filter((c) => c.judge?.verdict === "skipped");
  if (skipped.length === 0) return "";
  return ` (judge criteria not judged: ${skipped[0]!.judge!.reason?.replace(/^not judged: /, "") ?? "no judge"})`;
}

export function seconds(record: TrialRecord): string {
  return `${((Date.parse(record.finishedAt) - Date.parse(record.startedAt)) / 1000).toFixed(1)} s`;
}

/** Where a check's record is: the trials file and the trial id. */
export function recordPlace(context: CheckContext, record: TrialRecord): string {
  return `${relativeToProject(context.sandbox!.paths, trialsFileOf(context.sandbox!.runDir))} ${record.trialId}`;
}

function judged(context: CheckContext, record: TrialRecord | string, expect: "pass" | "fail"): StepOutcome[] {
  if (typeof record === "string") return [{ status: "fail", detail: record }];
  const where = recordPlace(context, record);
  if (outcomeOf(record) === "infra") {
    return [
      {
        status: "fail",
        detail: `infrastructure error ${record.error?.kind}: ${record.error?.message} (${where})`,
      },
    ];
  }
  const { verdict } = record;
  const why = verdict.status === "pass" ? "" : `: ${failureText(verdict)}`;
  const skipped = skippedJudges(verdict);
  const agentError = record.error ? ` (${record.error.kind}: ${record.error.message})` : "";
  if (verdict.status === expect) {
    const attributed = verdict.attribution ? `, attributed to ${verdict.attribution}` : "";
    return [
      {
        status: "pass",
        detail: `${verdict.status === "pass" ? "passes" : "fails"}${attributed} in ${seconds(record)}${skipped}`,
      },
    ];
  }
  return [{ status: "fail", detail: `verdict ${verdict.status}${why}${agentError} (${where})` }];
}

export const oracleStep: CheckStep = {
  id: "oracle",
  needs: ["task", "verifier"],
  trials: true,
  async run(context) {
    if (!context.sandbox) return [{ status: "unavailable", detail: "not run (--no-sandbox)" }];
    return judged(context, await context.sandbox.trial(context, "+A", "oracle"), "pass");
  },
};

export const noopStep: CheckStep = {
  id: "noop",
  needs: ["task", "verifier"],
  trials: true,
  async run(context) {
    if (!context.sandbox) return [{ status: "unavailable", detail: "not run (--no-sandbox)" }];
    return judged(context, await context.sandbox.trial(context, "-A", "noop"), "fail");
  },
};
