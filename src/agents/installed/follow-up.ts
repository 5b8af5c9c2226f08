// The monitoring follow-up after an installed harness exits (issue 17): its final message and the
// declared outputs it wrote (read back from the sandbox, capped) go to the configuration's own model
// client on the host (the key never enters the container) through the run's follow-up hook.
import { type RetrospectiveOutcome, type StopReason, ZERO_USAGE } from "../../record/index.ts";
import type { Sandbox } from "../../sandbox/index.ts";
import { asTrialError } from "../errors.ts";
import { type ResolvedAgentConfig, resolveApiKey } from "../load-config.ts";
import type { AgentRunContext, WrittenOutput } from "../types.ts";

/** Bytes of each declared output and of the final message the follow-up carries. */
export const OUTPUT_CAP = 4096;
export const FINAL_MESSAGE_CAP = 8192;
/** At most this many declared outputs are read back. */
const MAX_OUTPUTS = 8;

/** The probes follow an agent that ended on its own terms, as in the built-in loop. */
const PROBED: ReadonlySet<StopReason> = new Set(["finish", "max-turns", "token-budget"]);

/** The head of a declared output, read inside the sandbox (bounded); null when it is not there. */
async function readBack(sandbox: Sandbox, file: string, signal: AbortSignal): Promise<WrittenOutput> {
  try {
    const r = await sandbox.exec(["head", "-c", String(OUTPUT_CAP + 1), "--", file], {
      timeoutSec: 10,
      maxOutputBytes: OUTPUT_CAP + 1,
      signal,
    });
    if (r.exitCode !== 0 || r.timedOut) return { path: file, text: null, truncated: false };
    const truncated = Buffer.byteLength(r.stdout) > OUTPUT_CAP || r.stdoutTruncated;
    const text = truncated ? Buffer.from(r.stdout).subarray(0, OUTPUT_CAP).toString("utf8") : r.stdout;
    return { path: file, text, truncated };
  } catch {
    return { path: file, text: null, truncated: false };
  }
}

/** Runs the follow-up when asked and the harness finished; undefined otherwise. Never throws. */
export async function harnessFollowUp(
  ctx: AgentRunContext,
  config: ResolvedAgentConfig,
  env: NodeJS.ProcessEnv | undefined,
  stopReason: StopReason,
  finalMessage: string | undefined,
): Promise<RetrospectiveOutcome | undefined> {
  const followUp = ctx.followUp;
  if (!followUp || !PROBED.has(stopReason)) return undefined;
  try {
    const outputs: WrittenOutput[] = [];
    for (const o of ctx.task.spec.outputs.slice(0, MAX_OUTPUTS))
      outputs.push(await readBack(ctx.sandbox, o.path, ctx.signal));
    const providers = await import("../providers/index.ts");
    return await followUp({
      kind: "harness",
      model: providers.createChatModel(config, resolveApiKey(config, env) ?? null),
      instruction: ctx.instruction,
      finalMessage: finalMessage === undefined ? null : finalMessage.slice(0, FINAL_MESSAGE_CAP),
      outputs,
      maxOutputTokens: config.maxOutputTokens,
      temperature: config.temperature,
      pricing: config.pricing,
      signal: ctx.signal,
    });
  } catch (err) {
    const failed = asTrialError(err);
    const error = { ...failed, message: `follow-up: ${failed.message}` };
    return { mode: "follow-up", keep: null, bet: null, turns: [], usage: { ...ZERO_USAGE }, error };
  }
}
