// The built-in tool loop: the model on the host, its tool calls in the sandbox. Stops on finish, max
// turns, token budget or timeout (each the recorded stop reason); infra failures end it as errors.
// Every model call is charged in the trial's ledger, a call cut by the timeout or Ctrl-C included.

import { type TrajectorySink, trialError } from "../record/index.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { AdaptiveLimit } from "./adaptive-limit.ts";
import type { RetryPolicy } from "./config.ts";
import { classifyError, errorMessage, ModelCallError } from "./errors.ts";
import { type CallLedger, chargedCall } from "./ledger.ts";
import type { ChatMessage, ChatModel, ModelReply, ToolResult } from "./providers/types.ts";
import { retryLine, retryNote, withRetry } from "./retry.ts";
import { capText, runTool, TOOL_SPECS } from "./tools.ts";
import { type AgentResult, AgentTimeoutError, abortOutcome } from "./types.ts";

export interface LoopOptions {
  model: ChatModel;
  sandbox: Sandbox;
  instruction: string;
  system: string | null;
  maxTurns: number;
  tokenBudget: number;
  /** Output tokens across the trial; each call's max_tokens is capped at what is left of it. */
  outputTokenBudget?: number;
  timeoutSec: number;
  maxOutputTokens: number;
  temperature?: number;
  tools: { bashTimeoutSec: number; outputCapBytes: number };
  retry: RetryPolicy;
  /** The provider's adaptive concurrency (adaptive-limit.ts): each call attempt holds a slot. */
  limit?: AdaptiveLimit;
  /** Where each model call is charged (every attempt, at its reported usage or its reservation). */
  ledger: CallLedger;
  /** Aborted by the runner (its timeout, or cancellation). */
  signal: AbortSignal;
  trajectory: TrajectorySink;
  random?: () => number;
  /** Progress lines (retries) for the operator. */
  log?: (line: string) => void;
}

export interface LoopResult extends AgentResult {
  turns: number;
  /** The conversation as it ended, for follow-up turns. */
  messages: ChatMessage[];
}

const TEXT_CAP = 64 * 1024;
const CUT_OFF_NUDGE = "(Your previous reply was cut off at the output limit. Continue.)";

function textOf(reply: ModelReply): string {
  return reply.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
}

export async function runToolLoop(o: LoopOptions): Promise<LoopResult> {
  const ledger = o.ledger;
  const started = Date.now();
  const deadline = started + o.timeoutSec * 1000;
  const abort = new AbortController();
  const onOuterAbort = () => abort.abort(o.signal.reason);
  o.signal.addEventListener("abort", onOuterAbort, { once: true });
  if (o.signal.aborted) abort.abort(o.signal.reason);
  const timer = setTimeout(
    () => abort.abort(new AgentTimeoutError(`the agent did not finish within ${o.timeoutSec} s`)),
    o.timeoutSec * 1000,
  );
  const remainingSec = () => Math.max(1, Math.floor((deadline - Date.now()) / 1000));
  const messages: ChatMessage[] = [{ role: "user", text: o.instruction }];
  let turns = 0;

  /** An abort ends the loop as a timeout (the agent's) or as cancelled (the run's, never counted). */
  const aborted = (): LoopResult => {
    const outcome = abortOutcome(abort.signal);
    return outcome.stopReason === "timeout" ? end("timeout") : end("cancelled", outcome.error);
  };
  const end = (stopReason: AgentResult["stopReason"], error?: AgentResult["error"]): LoopResult => {
    const usage = ledger.usage();
    if (error) o.trajectory.append({ type: "error", ...error });
    o.trajectory.append({
      type: "note",
      kind: "stop",
      stopReason,
      turns,
      usage,
      elapsedMs: Date.now() - started,
    });
    const reportedUsage = ledger.reportedUsage();
    return { stopReason, usage, reportedUsage, turns, messages, ...(error ? { error } : {}) };
  };

  try {
    for (;;) {
      if (abort.signal.aborted) return aborted();
      if (turns >= o.maxTurns) return end("max-turns");
      if (ledger.total >= o.tokenBudget) return end("token-budget");
      const outputLeft = (o.outputTokenBudget ?? Number.POSITIVE_INFINITY) - ledger.usage().outputTokens;
      if (outputLeft <= 0) return end("token-budget");
      const callStarted = Date.now();
      const request = {
        system: o.system,
        messages,
        tools: TOOL_SPECS,
        maxOutputTokens: Math.min(o.maxOutputTokens, outputLeft),
        temperature: o.temperature,
        signal: abort.signal,
      };
      const reply = await withRetry(() => chargedCall(ledger, request, (r) => o.model.complete(r)), o.retry, {
        signal: abort.signal,
        random: o.random,
        limit: o.limit,
        onRetry: (n) => {
          o.log?.(retryLine(n));
          o.trajectory.append({ ...retryNote(n), message: n.message });
        },
      });
      turns += 1;
      const calls = reply.parts.filter((p) => p.type === "tool-call");
      o.trajectory.append({
        type: "model",
        turn: turns,
        durationMs: Date.now() - callStarted,
        model: reply.model,
        stopReason: reply.stopReason,
        usage: reply.usage,
        text: capText(textOf(reply), TEXT_CAP).text,
        toolCalls: calls.map((c) => ({ id: c.id, name: c.name })),
      });
      messages.push({ role: "assistant", parts: reply.parts });
      if (calls.length === 0) {
        if (reply.stopReason !== "max-tokens") return end("finish");
        messages.push({ role: "user", text: CUT_OFF_NUDGE });
        continue;
      }
      const results: ToolResult[] = [];
      let finished = false;
      for (const call of calls) {
        o.trajectory.append({
          type: "tool-call",
          turn: turns,
          id: call.id,
          name: call.name,
          input: call.input,
        });
        const toolStarted = Date.now();
        const outcome = await runTool(o.sandbox, call, { ...o.tools, remainingSec, signal: abort.signal });
        finished ||= outcome.finished === true;
        const output = capText(outcome.output, o.tools.outputCapBytes + 1024).text;
        results.push({ id: call.id, name: call.name, output, isError: outcome.isError });
        o.trajectory.append({
          type: "tool-result",
          turn: turns,
          id: call.id,
          name: call.name,
          isError: outcome.isError,
          durationMs: Date.now() - toolStarted,
          output,
          ...outcome.details,
        });
      }
      messages.push({ role: "tool-results", results });
      if (finished) return end("finish");
    }
  } catch (err) {
    if (abort.signal.aborted) return aborted();
    if (err instanceof ModelCallError) return end("error", err.toTrialError());
    const failure = classifyError(err);
    const stack = failure.kind === "internal" && err instanceof Error ? err.stack : undefined;
    return end("error", trialError(failure.kind, errorMessage(err), stack));
  } finally {
    clearTimeout(timer);
    o.signal.removeEventListener("abort", onOuterAbort);
  }
}
