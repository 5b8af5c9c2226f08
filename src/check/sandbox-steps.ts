// Checks in the real sandbox: the oracle passes under +A and the noop agent fails under -A. Each is
// one trial through the trial runner, verified on the host and recorded in runs/<run-id>/.
import { type Agent, noopAgent, oracleAgent } from "../agents/index.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { ensureSandboxImage } from "../sandbox/index.ts";
import type { Condition } from "../task/index.ts";
import { newRunId, runDirOf, runTrial, type TrialRecord, trialsFileOf } from "../trial/index.ts";
import { verifyTrial } from "../verify/index.ts";
import type { CheckContext, CheckStep, StepOutcome } from "./types.ts";

/** What the sandbox steps of one `kgate check` share: a run for their records, and the image. */
export interface SandboxSession {
  paths: ProjectPaths;
  runId: string;
  runDir: string;
  signal?: AbortSignal;
  /** The sandbox image, built or found once (a failure is remembered and reported by each step). */
  image(): Promise<string>;
}

export function sandboxSession(
  paths: ProjectPaths,
  options: { signal?: AbortSignal; progress?: (line: string) => void } = {},
): SandboxSession {
  const runId = `check-${newRunId()}`;
  let image: Promise<string> | undefined;
  return {
    paths,
    runId,
    runDir: runDirOf(paths, runId),
    signal: options.signal,
    image: () => {
      image ??= ensureSandboxImage(paths, { onProgress: (line) => options.progress?.(`sandbox: ${line}`) });
      return image;
    },
  };
}

export function seconds(record: TrialRecord): string {
  return `${((Date.parse(record.finishedAt) - Date.parse(record.startedAt)) / 1000).toFixed(1)} s`;
}

/** One trial of the task with `agent` under `condition`, or why it could not run. */
export async function sandboxTrial(
  context: CheckContext,
  condition: Condition,
  agent: Agent,
): Promise<TrialRecord | string> {
  const session = context.sandbox!;
  let image: string;
  try {
    image = await session.image();
  } catch (err) {
    return `the sandbox image is not available: ${(err as Error).message} (run \`kgate sandbox doctor\`)`;
  }
  context.progress(`${context.id}: ${agent.name} under ${condition} in the sandbox`);
  return runTrial({
    paths: session.paths,
    task: context.task!,
    condition,
    agent,
    runId: session.runId,
    runDir: session.runDir,
    index: 0,
    image,
    verify: verifyTrial,
    signal: session.signal,
  });
}

/** Where a check's record is: the trials file and the trial id. */
export function recordPlace(context: CheckContext, record: TrialRecord): string {
  return `${relativeToProject(context.sandbox!.paths, trialsFileOf(context.sandbox!.runDir))} ${record.trialId}`;
}

function judged(context: CheckContext, record: TrialRecord | string, expect: "pass" | "fail"): StepOutcome[] {
  if (typeof record === "string") return [{ status: "fail", detail: record }];
  const where = recordPlace(context, record);
  if (record.error?.class === "infra") {
    return [
      {
        status: "fail",
        detail: `infrastructure error ${record.error.kind}: ${record.error.message} (${where})`,
      },
    ];
  }
  const { verdict } = record;
  const why = verdict.reason ? `: ${verdict.reason}` : "";
  const agentError = record.error ? ` (${record.error.kind}: ${record.error.message})` : "";
  if (verdict.status === expect) {
    const attributed = verdict.attribution ? `, attributed to ${verdict.attribution}` : "";
    return [
      {
        status: "pass",
        detail: `${verdict.status === "pass" ? "passes" : "fails"}${attributed} in ${seconds(record)}`,
      },
    ];
  }
  return [{ status: "fail", detail: `verdict ${verdict.status}${why}${agentError} (${where})` }];
}

export const oracleStep: CheckStep = {
  id: "oracle",
  needs: ["task", "verifier"],
  async run(context) {
    if (!context.sandbox) return [{ status: "unavailable", detail: "not run (--no-sandbox)" }];
    return judged(context, await sandboxTrial(context, "+A", oracleAgent()), "pass");
  },
};

export const noopStep: CheckStep = {
  id: "noop",
  needs: ["task", "verifier"],
  async run(context) {
    if (!context.sandbox) return [{ status: "unavailable", detail: "not run (--no-sandbox)" }];
    return judged(context, await sandboxTrial(context, "-A", noopAgent()), "fail");
  },
};
