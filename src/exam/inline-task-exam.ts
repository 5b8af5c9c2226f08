// An exam of inline tasks: the N tasks in their inline form (instruction and data in fenced blocks)
// as the questions of one reasoning turn capped at B, then an extraction turn asking for each task's
// output blocks labelled `task-k/<path>`; each task verified by its verifier, effort by the Qk markers.
import type { ChatModel, Pricing } from "../agents/index.ts";
import { type Condition, type LoadedTask, parseInlineReply, renderInline } from "../task/index.ts";
import { verifyTrial } from "../verify/index.ts";
import { examRun, reasonThenExtract } from "./item-exam.ts";
import type { ExamSpec } from "./plan.ts";
import { examPrompt, type PromptQuestion } from "./prompts.ts";
import type { ExamRun } from "./run.ts";
import { taskFolder } from "./task-exam.ts";

export interface InlineTaskExamContext {
  model: ChatModel;
  pricing: Pricing | null;
  tasks: ReadonlyMap<string, LoadedTask>;
  condition: Condition;
  /** B: the reasoning turn's output cap. */
  budget: number;
  temperature?: number;
  signal?: AbortSignal;
}

/** Most tokens the extraction turn grants one output block (its maxBytes when smaller). */
export const INLINE_OUTPUT_TOKENS = 4096;

/** Output cap of the extraction turn: 64, plus per declared output min(maxBytes, 4096). */
export function inlineExtractionTokens(tasks: readonly LoadedTask[]): number {
  const outputs = tasks.flatMap((t) => t.spec.outputs);
  return 64 + outputs.reduce((sum, o) => sum + Math.min(o.maxBytes, INLINE_OUTPUT_TOKENS), 0);
}

/** A task as an exam question: its instruction and its files, both as the inline form renders them. */
export function inlineQuestion(task: LoadedTask, condition: Condition): string {
  const inline = renderInline(task, condition);
  return `${inline.instruction}\n\n${inline.filesText}`;
}

/** The extraction turn: every task's outputs, each in a fenced block labelled task-k/<path>. */
export function inlineExtractionPrompt(tasks: readonly LoadedTask[]): string {
  const lines = [
    "Now give the output files of every task you did. Give each file's complete content in its own fenced block whose opening fence is labelled task-<k>/<path> (k: the question's number), like this:",
    "",
  ];
  for (const [i, task] of tasks.entries())
    for (const output of task.spec.outputs) {
      const label = `${taskFolder(i + 1)}/${output.path}`;
      lines.push(`\`\`\`${label}`, `<content of ${output.path} for question ${i + 1}>`, "```");
    }
  lines.push("", "Leave out the blocks of a task you did not do. Write nothing else.");
  return lines.join("\n");
}

/** The exam's tasks and their questions, in presentation order. */
export function inlineExamQuestions(
  spec: ExamSpec,
  all: ReadonlyMap<string, LoadedTask>,
  condition: Condition,
): { tasks: LoadedTask[]; questions: PromptQuestion[] } {
  const tasks = spec.units.map((u) => {
    const task = all.get(u.id);
    if (!task) throw new Error(`the exam's task "${u.id}" is not loaded`);
    return task;
  });
  const questions = spec.units.map((u, i) => ({
    position: u.position,
    points: u.points,
    text: inlineQuestion(tasks[i]!, condition),
  }));
  return { tasks, questions };
}

export async function runInlineTaskExam(spec: ExamSpec, ctx: InlineTaskExamContext): Promise<ExamRun> {
  const { tasks, questions } = inlineExamQuestions(spec, ctx.tasks, ctx.condition);
  const exam = examPrompt(questions, ctx.budget, spec.prompt, spec.nameQuestions);
  const turns = await reasonThenExtract(ctx, exam, {
    prompt: inlineExtractionPrompt(tasks),
    maxOutputTokens: inlineExtractionTokens(tasks),
  });

  const outcomes = [];
  for (const [i, task] of tasks.entries()) {
    const outputs = parseInlineReply(task, turns.extracted, `${taskFolder(i + 1)}/`);
    const verdict = await verifyTrial(task, outputs);
    const correct = verdict.status === "pass";
    outcomes.push({ answer: null, correct, score: correct ? 1 : 0 });
  }
  return examRun(turns, outcomes, questions.length);
}
