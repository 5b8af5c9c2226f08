// The judge's answer schema (zod) and how a reply is read: the forced tool call's input, or a JSON
// object as the reply's text (a server that ignores tool forcing); anything else is an answer off the
// schema, which the caller records as the deliverable's doing (`invalid`).
import { z } from "zod";
import type { ModelReply } from "../providers/types.ts";
import { VERDICT_TOOL } from "./prompt.ts";

/** Longest reason accepted: a judge asked for one or two sentences that writes pages was led astray. */
export const MAX_REASON_CHARS = 2000;

export const JudgeAnswer = z
  .object({
    verdict: z.enum(["pass", "fail"]),
    reason: z.string().trim().min(1).max(MAX_REASON_CHARS),
  })
  .strict();
export type JudgeAnswer = z.infer<typeof JudgeAnswer>;

export type ReadAnswer = { ok: true; answer: JudgeAnswer } | { ok: false; why: string };

function fromText(parts: ModelReply["parts"]): unknown {
  const text = parts
    .flatMap((p) => (p.type === "text" ? [p.text] : []))
    .join("")
    .trim();
  const json = text.replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

const clip = (text: string, n = 200) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** The answer of a reply, or why it is none. */
export function readAnswer(reply: ModelReply): ReadAnswer {
  if (reply.stopReason === "max-tokens")
    return { ok: false, why: "the judge's answer was cut off at its output cap" };
  const calls = reply.parts.filter((p) => p.type === "tool-call" && p.name === VERDICT_TOOL.name);
  if (calls.length > 1)
    return { ok: false, why: `the judge called ${VERDICT_TOOL.name} ${calls.length} times` };
  const call = calls[0];
  const raw = call?.type === "tool-call" ? (call.inputError ? undefined : call.input) : fromText(reply.parts);
  if (raw === undefined) {
    const text = reply.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    return { ok: false, why: `the judge answered without its verdict: ${JSON.stringify(clip(text))}` };
  }
  const parsed = JudgeAnswer.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return {
      ok: false,
      why: `the judge's answer is off its schema: ${issue.path.join(".") || "(answer)"}: ${issue.message}`,
    };
  }
  return { ok: true, answer: parsed.data };
}
