// The follow-up form of the retrospective questions for installed harnesses (issue 17): a fresh
// conversation with the configuration's own model, no system prompt and no tools, whose first user
// message carries the task, the harness's final message and the declared outputs it wrote (capped).
import type { FinishedConversation, FinishedHarnessRun, WrittenOutput } from "../agents/index.ts";

const outputBlock = (o: WrittenOutput) =>
  o.text === null
    ? `<output path="${o.path}">\n(not written)\n</output>`
    : `<output path="${o.path}"${o.truncated ? ' truncated="yes"' : ""}>\n${o.text}\n</output>`;

/** The text before the KEEP question in the follow-up's first message (docs/monitoring.md quotes it). */
export function followUpPreamble(run: Pick<FinishedHarnessRun, "instruction" | "finalMessage" | "outputs">) {
  return (
    "You worked on the task below in a session that has now ended; no tool can be run now. " +
    "The task, your final message and the outputs you wrote follow.\n\n" +
    `<task>\n${run.instruction}\n</task>\n\n` +
    `<final_message>\n${run.finalMessage ?? "(none reported)"}\n</final_message>\n\n` +
    `<outputs>\n${run.outputs.map(outputBlock).join("\n")}\n</outputs>\n\n`
  );
}

/** The fresh conversation the questions are asked in, and the preamble of its first message. */
export function followUpConversation(run: FinishedHarnessRun): {
  conversation: FinishedConversation;
  preamble: string;
} {
  return {
    conversation: {
      model: run.model,
      system: null,
      messages: [],
      tools: [],
      maxOutputTokens: run.maxOutputTokens,
      temperature: run.temperature,
      pricing: run.pricing,
      signal: run.signal,
    },
    preamble: followUpPreamble(run),
  };
}
