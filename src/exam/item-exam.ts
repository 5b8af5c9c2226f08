// An item exam in two phases, as the paper runs it: one free-form reasoning turn over the whole exam
// capped at B generated tokens, then an answer-extraction turn with the trace as history (not counted
// against B) whose `Qk: answer` lines are checked item by item.
import type { ChatModel, ModelReply, Pricing } from "../agents/index.ts";
import { UsageMeter } from "../agents/index.ts";
import type { Usage } from "../record/index.ts";
import { checkItemAnswer, type Item } from "../task/index.ts";
import { attributeTrace } from "./attribution.ts";
import type { ExamSpec } from "./plan.ts";
import { EXTRACTION_TEMPERATURE, examPrompt, extractionPrompt, parseAnswers } from "./prompts.ts";
import type { ExamRun } from "./run.ts";

export interface ItemExamContext {
  model: ChatModel;
  pricing: Pricing | null;
  /** B: the reasoning turn's output cap. */
  budget: number;
  temperature?: number;
  signal?: AbortSignal;
}

/** The most text kept of one reply of an item exam (a reply is attacker-controlled: a provider may ignore the cap). */
const EXAM_REPLY_CHARS = 1024 * 1024;

/** Output cap of the extraction turn: room for a short answer line per question. */
export function extractionTokens(count: number): number {
  return 64 + 48 * count;
}

/** The text parts of a reply, capped at EXAM_REPLY_CHARS. */
function textOf(reply: ModelReply): string {
  return reply.parts
    .flatMap((p) => (p.type === "text" ? [p.text] : []))
    .join("")
    .slice(0, EXAM_REPLY_CHARS);
}

/** The exam's items as its questions, in presentation order. */
export function itemQuestions(spec: ExamSpec, items: ReadonlyMap<string, Item>) {
  return spec.units.map((u) => {
    const item = items.get(u.id);
    if (!item) throw new Error(`the pool has no item "${u.id}" any more`);
    return { position: u.position, points: u.points, text: item.prompt, item };
  });
}

export async function runItemExam(
  spec: ExamSpec,
  items: ReadonlyMap<string, Item>,
  ctx: ItemExamContext,
): Promise<ExamRun> {
  const questions = itemQuestions(spec, items);
  const exam = examPrompt(questions, ctx.budget, spec.prompt, spec.nameQuestions);
  const turns = await reasonThenExtract(ctx, exam, {
    prompt: extractionPrompt(questions.length),
    maxOutputTokens: extractionTokens(questions.length),
  });
  const answers = parseAnswers(turns.extracted, questions.length);

  const outcomes = questions.map((q) => {
    const answer = answers.get(q.position) ?? null;
    const correct = answer !== null && checkItemAnswer(q.item, answer);
    return { answer, correct, score: correct ? 1 : 0 };
  });
  return examRun(turns, outcomes, questions.length);
}

/** The two turns of an exam: what the model reasoned (capped at B) and what it extracted after. */
export interface ExamTurns {
  reasoning: ModelReply;
  trace: string;
  extracted: string;
  usage: Usage;
  extractionUsage: Usage;
}

/**
 * One free-form reasoning turn over the exam, capped at B generated tokens (at the configuration's
 * temperature), then the extraction turn with the trace as history (its own usage, not counted
 * against B), greedy: at EXTRACTION_TEMPERATURE whatever the configuration says.
 */
export async function reasonThenExtract(
  ctx: ItemExamContext,
  exam: string,
  extraction: { prompt: string; maxOutputTokens: number },
): Promise<ExamTurns> {
  const reasoningMeter = new UsageMeter(ctx.pricing);
  const reasoning = await ctx.model.complete({
    system: null,
    messages: [{ role: "user", text: exam }],
    tools: [],
    maxOutputTokens: ctx.budget,
    temperature: ctx.temperature,
    signal: ctx.signal,
  });
  reasoningMeter.add(reasoning.usage);
  const trace = textOf(reasoning);

  const extractionMeter = new UsageMeter(ctx.pricing);
  const reply = await ctx.model.complete({
    system: null,
    messages: [
      { role: "user", text: exam },
      { role: "assistant", parts: [{ type: "text", text: trace === "" ? "(no reasoning)" : trace }] },
      { role: "user", text: extraction.prompt },
    ],
    tools: [],
    maxOutputTokens: extraction.maxOutputTokens,
    temperature: EXTRACTION_TEMPERATURE,
    signal: ctx.signal,
  });
  extractionMeter.add(reply.usage);
  return {
    reasoning,
    trace,
    extracted: textOf(reply),
    usage: reasoningMeter.snapshot(),
    extractionUsage: extractionMeter.snapshot(),
  };
}

/** An exam's run from its turns and outcomes: usage apart per turn, effort by the question markers. */
export function examRun(turns: ExamTurns, outcomes: ExamRun["outcomes"], questions: number): ExamRun {
  const reported = turns.reasoning.usage.output > 0 ? turns.reasoning.usage.output : null;
  return {
    usage: turns.usage,
    extractionUsage: turns.extractionUsage,
    stopReason: turns.reasoning.stopReason,
    extractionTemperature: EXTRACTION_TEMPERATURE,
    outcomes,
    attribution: attributeTrace(turns.trace, questions, reported),
  };
}
