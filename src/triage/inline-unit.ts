// Inline task units (`inline:<id>,<id>`): a gated task under +A or -A answered by the configuration's
// model in one call in the task's inline form (no tools, no sandbox: the instruction byte-identical,
// the condition's files in fenced blocks, the outputs asked back as labelled blocks), the reply's
// outputs verified by the task's verifier in the killable worker. Cost: the reply's output tokens.
import { type ChatModel, type RetryPolicy, withRetry } from "../agents/index.ts";
import type { ProjectPaths } from "../project.ts";
import { type Condition, FAILURE_KINDS } from "../record/index.ts";
import { INLINE_REPLY_CAP, type LoadedTask, parseInlineReply, renderInline } from "../task/index.ts";
import { defaultVerify, verifyOutputs } from "../trial/index.ts";
import { MAX_KEPT_REPLY_CHARS } from "./item-unit.ts";
import { UnitFailure, type UnitRunner } from "./live.ts";
import { taskBudgetSentence } from "./task-live.ts";

/** The verifier's limit on one reply's outputs (as an inline trial's). */
export const INLINE_UNIT_VERIFY_MS = 60_000;

/**
 * The system prompt and the one user message of an inline unit: the task's inline form as
 * `renderInline` gives it; in the re-solve, a blank line and the budget sentence after all of it
 * (the instruction inside stays byte-identical under +A and -A).
 */
export function inlineUnitPrompt(
  task: LoadedTask,
  condition: Condition,
  stated?: number,
): { system: string; text: string } {
  const form = renderInline(task, condition);
  return {
    system: form.system,
    text: stated === undefined ? form.text : `${form.text}\n${taskBudgetSentence(stated)}`,
  };
}

export interface InlineUnitContext {
  paths: ProjectPaths;
  tasks: ReadonlyMap<string, LoadedTask>;
  model: ChatModel;
  temperature: number;
  /** The configuration's retry policy for the call (transient provider errors, with back-off). */
  retry: RetryPolicy;
}

/**
 * Runs an inline unit with `cap` as the call's max_tokens (and, with `stated`, the same cap in its
 * prompt). Correct: the verifier's verdict is `pass`. A verifier that fails on the task's side (an
 * infrastructure kind: broken, internal) throws UnitFailure, so the unit is logged and `--resume` retries it; one
 * that crashes or times out on the reply's output is the model's failure, a wrong answer.
 */
export function inlineUnitRunner(ctx: InlineUnitContext, stated = false): UnitRunner {
  return async (unit, cap, _at, signal) => {
    if (unit.source.kind !== "inline") throw new Error(`unit ${unit.id} is not an inline task`);
    const task = ctx.tasks.get(unit.source.task);
    if (!task) throw new Error(`unit ${unit.id}: task ${unit.source.task} is not loaded`);
    const prompt = inlineUnitPrompt(task, unit.source.condition as Condition, stated ? cap : undefined);
    const reply = await withRetry(
      () =>
        ctx.model.complete({
          system: prompt.system,
          messages: [{ role: "user", text: prompt.text }],
          tools: [],
          maxOutputTokens: cap,
          temperature: ctx.temperature,
          signal,
        }),
      ctx.retry,
      { signal },
    );
    const text = reply.parts
      .filter((p) => p.type === "text")
      .map((p) => p.text)
      .join("")
      .slice(0, INLINE_REPLY_CAP);
    const outputs = parseInlineReply(task, text);
    const checked = await verifyOutputs(defaultVerify(ctx.paths), task, outputs, INLINE_UNIT_VERIFY_MS);
    if (checked.error && !FAILURE_KINDS[checked.error.kind].counted)
      throw new UnitFailure({ ...checked.error, message: `unit ${unit.id}: ${checked.error.message}` });
    return {
      cost: reply.usage.output,
      correct: checked.verdict.status === "pass",
      capped: reply.stopReason === "max-tokens",
      answer: checked.verdict.status,
      reply: text.slice(0, MAX_KEPT_REPLY_CHARS),
      stopReason: reply.stopReason,
      inputTokens: reply.usage.input,
      cacheTokens: reply.usage.cacheRead + reply.usage.cacheWrite,
    };
  };
}
