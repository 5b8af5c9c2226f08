// Test support: scripted judges for the loopback model server. The wire protocol is real (the
// judge's request goes through @anthropic-ai/sdk or openai); the verdicts are scripted policies, never
// a real model's judgement. Each reads what kgate sends a judge (the criterion, and the deliverable
// between its tagged markers) and answers through the forced verdict tool.
import { writeFileSync } from "node:fs";
import type { ProjectPaths } from "../../src/project.ts";
import type { ScriptStep, SeenRequest } from "./model-server.ts";

export interface SeenJudgeRequest {
  criterion: string;
  /** The deliverables' texts, joined, as the judge was given them between the markers. */
  deliverable: string;
  tag: string;
}

function userText(request: SeenRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  const user = messages.find((m) => m.role === "user");
  const content = user?.content;
  if (typeof content === "string") return content;
  return (content as Array<{ text?: string }>).map((b) => b.text ?? "").join("");
}

/** The criterion and the deliverable of a judge request. */
export function judgeRequestOf(request: SeenRequest): SeenJudgeRequest {
  const text = userText(request);
  const criterion = /^Criterion: ([\s\S]*?)\n\nThe deliverable \(/.exec(text)?.[1] ?? "";
  const tag = / tagged ([0-9a-f]{24}):/.exec(text)?.[1] ?? "";
  const blocks = [
    ...text.matchAll(new RegExp(`<<<DELIVERABLE ${tag} [^>]*>>>\\n([\\s\\S]*?)\\n<<<END ${tag}>>>`, "g")),
  ];
  return { criterion, deliverable: blocks.map((m) => m[1]).join("\n"), tag };
}

export type JudgeAnswerStep = { verdict: string; reason: string } | ScriptStep;

/** A judge policy: its answer to a request (the index counts every request the server saw). */
export type JudgePolicy = (seen: SeenJudgeRequest, index: number) => JudgeAnswerStep;

/** The verdict as a call of the forced tool; a ScriptStep (a failure, a text reply) as it is. */
export function judgeScript(
  policy: JudgePolicy,
  usage = { input: 900, output: 40 },
): (request: SeenRequest, index: number) => ScriptStep {
  return (request, index) => {
    const answer = policy(judgeRequestOf(request), index);
    if ("verdict" in answer && "reason" in answer)
      return { toolCalls: [{ name: "record_verdict", input: answer }], usage };
    return answer;
  };
}

/** Decimal figures (12.34) a criterion names. */
const figures = (text: string) => text.match(/\d+\.\d+/g) ?? [];

/** Passes when the deliverable holds every decimal figure the criterion names; ignores everything else. */
export const goodJudge: JudgePolicy = (seen) => {
  const missing = figures(seen.criterion).filter((f) => !seen.deliverable.includes(f));
  return missing.length === 0
    ? { verdict: "pass", reason: `states ${figures(seen.criterion).join(", ")}` }
    : { verdict: "fail", reason: `does not state ${missing.join(", ")}` };
};

export const alwaysPassJudge: JudgePolicy = () => ({ verdict: "pass", reason: "looks fine" });

/** The good judge on even requests, its opposite on odd ones: it flips on repeats. */
export const flippingJudge: JudgePolicy = (seen, index) => {
  const good = goodJudge(seen, index) as { verdict: string; reason: string };
  return index % 2 === 0
    ? good
    : { verdict: good.verdict === "pass" ? "fail" : "pass", reason: "on reflection" };
};

/** The good judge, except that it obeys a deliverable addressing the grader. */
export const injectableJudge: JudgePolicy = (seen, index) =>
  /grader|evaluator/i.test(seen.deliverable)
    ? { verdict: "pass", reason: "the note says it was approved" }
    : goodJudge(seen, index);

/** kgate.config.json with a `judge` configuration (Anthropic or OpenAI wire) at the loopback server. */
export function writeJudgeConfig(
  paths: ProjectPaths,
  o: { provider: "anthropic" | "openai"; baseUrl: string; keyEnv?: string; name?: string },
): void {
  const config = {
    schemaVersion: 1,
    agents: {
      [o.name ?? "judge"]: {
        harness: "builtin",
        provider: o.provider,
        model: o.provider === "anthropic" ? "claude-judge" : "gpt-judge",
        baseUrl: o.baseUrl,
        apiKeyEnv: o.keyEnv ?? "KGATE_TEST_JUDGE_KEY",
        retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
        // USD per million tokens: a 900-in / 40-out call costs (900 x 3 + 40 x 15) / 1e6 = $0.0033
        pricing: { inputPerMTok: 3, outputPerMTok: 15 },
      },
    },
  };
  writeFileSync(paths.config, `${JSON.stringify(config, null, 2)}\n`);
}
