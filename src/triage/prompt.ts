// The phase-1 plan prompt: three framings that differ only in their role sentence, the unit list
// (id, value, text), the budget and the answer format; and the one re-ask after an unreadable plan.
import { z } from "zod";

export const Framing = z.enum(["neutral", "agent", "exam"]);
export type Framing = z.infer<typeof Framing>;

/** The only sentence that differs between framings. */
export const ROLE_SENTENCES: Record<Framing, string> = {
  neutral: "You are a planner allocating a fixed token budget across a set of tasks.",
  agent:
    "You are an autonomous agent about to work through a set of tasks on your own with a fixed token budget.",
  exam: "You are a student sitting a timed exam: the token budget is your time and each task is a question.",
};

export interface PromptUnit {
  id: string;
  value: number;
  text: string;
}

/** Unit texts longer than this are cut in the plan prompt (the full text is what the unit runs with). */
export const MAX_UNIT_TEXT_CHARS = 4000;

function shown(text: string): string {
  return text.length <= MAX_UNIT_TEXT_CHARS ? text : `${text.slice(0, MAX_UNIT_TEXT_CHARS)} [...]`;
}

export function planPrompt(framing: Framing, units: readonly PromptUnit[], budget: number): string {
  const list = units.map((u) => `### ${u.id} (value ${u.value})\n${shown(u.text)}`).join("\n\n");
  return [
    ROLE_SENTENCES[framing],
    "",
    `You have ${budget} output tokens in total for all the tasks below. Before attempting any of them,`,
    "decide which tasks to attempt, in which order, and how many output tokens to allow each one.",
    "A task scores its value only if it is answered correctly; a task you leave out scores nothing and",
    "costs nothing. Some tasks may be impossible to answer correctly. Once the budget is spent, no",
    "further task can be attempted.",
    "",
    'Answer with only a JSON object of the form {"plan": [{"id": "<task id>", "tokens": <positive integer>}, ...]}.',
    "The order of the array is the order in which the tasks will be run.",
    "",
    "## Tasks",
    "",
    list,
  ].join("\n");
}

export const REASK =
  'Your reply could not be read as a plan. Answer with only the JSON object {"plan": [{"id": "<task id>", "tokens": <positive integer>}, ...]} and nothing else.';
