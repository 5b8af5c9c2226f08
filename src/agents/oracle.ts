// The oracle agent: copies the task's solution/ into the sandbox (outside the work directory) and
// runs task.json `solution.command` with bash in the work directory. A failing solution is a failure.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { trialError, ZERO_USAGE } from "../record/index.ts";
import { listFiles, sha256 } from "../task/index.ts";
import type { Agent, AgentResult, AgentRunContext } from "./types.ts";

/** Where the solution goes: in the sandbox user's home, beside (not inside) the work directory. */
export const SOLUTION_DIR_IN_SANDBOX = "/home/agent/.kgate-solution";
const STDERR_TAIL = 2000;

async function run(ctx: AgentRunContext): Promise<AgentResult> {
  const files = listFiles(ctx.task.solutionDir);
  for (const file of files) {
    const abs = path.join(ctx.task.solutionDir, file);
    const mode = statSync(abs).mode & 0o111 ? 0o755 : 0o644;
    await ctx.sandbox.writeFile(`${SOLUTION_DIR_IN_SANDBOX}/${file}`, readFileSync(abs), { mode });
  }
  ctx.trajectory.append({
    type: "note",
    text: `copied ${files.length} solution file(s) to ${SOLUTION_DIR_IN_SANDBOX}`,
  });
  const command = ctx.task.spec.solution.command;
  ctx.trajectory.append({ type: "tool-call", tool: "bash", command });
  const result = await ctx.sandbox.exec(["bash", "-c", command], {
    // Where the artefact (or a variant) is placed, relative to the work directory; absent under -A.
    env: { KGATE_SOLUTION_DIR: SOLUTION_DIR_IN_SANDBOX, KGATE_ARTEFACT_PATH: ctx.task.spec.artefact.path },
    timeoutSec: ctx.budget.wallClockSec,
    signal: ctx.signal,
  });
  ctx.trajectory.append({ type: "tool-result", tool: "bash", ...result });
  if (result.timedOut) {
    const message = `the solution did not finish within ${ctx.budget.wallClockSec} s`;
    return { stopReason: "timeout", usage: ZERO_USAGE, error: trialError("timeout", message) };
  }
  if (result.exitCode !== 0) {
    const tail = result.stderr.slice(-STDERR_TAIL).trim();
    const message = `the solution exited with ${result.exitCode}${tail ? `: ${tail}` : ""}`;
    return {
      stopReason: "error",
      usage: ZERO_USAGE,
      error: trialError("solution-failed", message),
    };
  }
  return { stopReason: "finish", usage: ZERO_USAGE };
}

export function oracleAgent(): Agent {
  return {
    name: "oracle",
    harness: "oracle",
    model: null,
    digest: sha256(JSON.stringify({ name: "oracle", harness: "oracle", version: 1 })),
    revision: "oracle@1",
    run,
  };
}
