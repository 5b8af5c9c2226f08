// Strict parsing of the monitoring questions' replies (case, punctuation, both words, neither) and the one re-ask.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  askQuestion,
  BET_QUESTION,
  DEFAULT_PAYOFF,
  KEEP_QUESTION,
  parseChoice,
  prospectiveQuestion,
} from "../src/monitor/index.ts";

const keep = KEEP_QUESTION.choices;
const bet = BET_QUESTION.choices;

describe("parseChoice", () => {
  it.each([
    ["KEEP", "KEEP"],
    ["keep", "KEEP"],
    ["  Withdraw.\n", "WITHDRAW"],
    ["**KEEP**", "KEEP"],
    ['"WITHDRAW"!', "WITHDRAW"],
    ["`KEEP`", "KEEP"],
  ] as const)("reads %j as %s", (reply, choice) => {
    expect(parseChoice(reply, keep)).toEqual({ ok: true, choice });
  });

  it.each([
    ["NO_BET", "NO_BET"],
    ["no bet", "NO_BET"],
    ["No-Bet.", "NO_BET"],
    ["bet", "BET"],
  ] as const)("reads %j as %s", (reply, choice) => {
    expect(parseChoice(reply, bet)).toEqual({ ok: true, choice });
  });

  it.each([
    ["KEEP or WITHDRAW", "both"],
    ["WITHDRAW, no, KEEP", "both"],
    ["I am not sure.", "neither"],
    ["", "empty"],
    ["...", "empty"],
    ["I will KEEP it", "extra-text"],
    ["I don't want to keep it", "extra-text"],
    ["KEEP".repeat(60), "too-long"],
  ] as const)("refuses %j (%s)", (reply, failure) => {
    expect(parseChoice(reply, keep)).toEqual({ ok: false, failure });
  });

  it("does not read NO_BET as BET", () => {
    expect(parseChoice("NO_BET, not BET", bet)).toEqual({ ok: false, failure: "both" });
  });
});

describe("askQuestion", () => {
  const scripted = (replies: string[]) => {
    const sent: string[] = [];
    return {
      sent,
      ask: async (message: string) => {
        sent.push(message);
        return replies.shift() ?? "";
      },
    };
  };

  it("takes a readable first reply without a re-ask", async () => {
    const s = scripted(["WITHDRAW"]);
    expect(await askQuestion(s.ask, KEEP_QUESTION)).toEqual({
      question: "keep",
      choice: "WITHDRAW",
      replies: ["WITHDRAW"],
      failures: [],
    });
    expect(s.sent).toEqual([KEEP_QUESTION.prompt]);
  });

  it("re-asks once after an unreadable reply", async () => {
    const s = scripted(["Both, really: KEEP and WITHDRAW", "keep"]);
    const outcome = await askQuestion(s.ask, KEEP_QUESTION);
    expect(outcome.choice).toBe("KEEP");
    expect(outcome.failures).toEqual(["both"]);
    expect(s.sent).toEqual([KEEP_QUESTION.prompt, KEEP_QUESTION.reAsk]);
  });

  it("gives up as unparsed after the re-ask", async () => {
    const s = scripted(["hmm", "I would rather not say", "KEEP"]);
    const outcome = await askQuestion(s.ask, BET_QUESTION);
    expect(outcome.choice).toBeNull();
    expect(outcome.failures).toEqual(["neither", "neither"]);
    expect(s.sent).toHaveLength(2); // never a third ask
  });
});

describe("the prospective prompt", () => {
  it("states the default schedule and carries the instruction unchanged", () => {
    const instruction = "Compute the cost roll-up.\nWrite output/answer.json.";
    const question = prospectiveQuestion(instruction, DEFAULT_PAYOFF);
    expect(question.prompt).toContain("Scored 1 if correct, 0 if wrong.");
    expect(question.prompt).toContain("Scored 0.5 if correct, 0.1 if wrong.");
    expect(question.prompt).toContain("DECLINE: do not attempt it. Scored 0.25.");
    expect(question.prompt).toContain(`<task>\n${instruction}\n</task>`);
    expect(parseChoice("request spec", question.choices)).toEqual({ ok: true, choice: "REQUEST_SPEC" });
  });
});

describe("docs/monitoring.md", () => {
  it("quotes every prompt exactly as sent", () => {
    const docs = readFileSync(path.resolve(import.meta.dirname, "../docs/monitoring.md"), "utf8");
    const prospective = prospectiveQuestion("{instruction}");
    for (const text of [
      KEEP_QUESTION.prompt,
      KEEP_QUESTION.reAsk,
      BET_QUESTION.prompt,
      BET_QUESTION.reAsk,
      prospective.prompt,
      prospective.reAsk,
    ])
      expect(docs).toContain(text);
  });
});
