// The monitoring analysis of run records, worked by hand: per configuration delta, profile, the -A
// withdraw rate, the prospective mix and payoff, and across configurations the dissociation and
// the split-half reliability.
import { describe, expect, it } from "vitest";
import { analyseRunRecords, monitoringHtmlSection, monitoringSection } from "../src/monitor/index.ts";
import type { TrialRecord } from "../src/record/index.ts";
import { trialError, UNVERIFIED } from "../src/record/index.ts";
import { makeRecord } from "./support/records.ts";

const usage = {
  inputTokens: 10,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  modelCalls: 1,
  callsChargedAtReservation: 0,
  costUsd: null,
};
const verdict = (pass: boolean) => ({
  ...UNVERIFIED,
  status: pass ? ("pass" as const) : ("fail" as const),
  reward: pass ? 1 : 0,
  score: pass ? 1 : 0,
});

function probed(agent: string, index: number, keep: "KEEP" | "WITHDRAW"): TrialRecord {
  const pass = index < 2; // trials 0 and 1 under +A pass, 2 and 3 under -A fail
  return makeRecord({
    agent: { name: agent, digest: `${agent}-digest`, harness: "builtin", model: `${agent}-model` },
    index,
    condition: pass ? "+A" : "-A",
    verdict: verdict(pass),
    monitor: {
      retrospective: { mode: "same-conversation", keep, bet: null, turns: [], usage, error: null },
      prospective: null,
    },
  });
}

function chose(agent: string, choice: "ANSWER_DIRECTLY" | "REQUEST_SPEC"): TrialRecord {
  return makeRecord({
    agent: { name: agent, digest: `${agent}-digest`, harness: "builtin", model: `${agent}-model` },
    condition: "-A",
    verdict: verdict(false),
    monitor: {
      retrospective: null,
      prospective: {
        choice,
        turns: [],
        usage,
        artefactPlaced: choice === "REQUEST_SPEC",
        placedDigest: null,
        error: null,
        schedule: null,
      },
    },
  });
}

// Index 0 (+A, pass) and 2 (-A, fail) are the even half; 1 (+A, pass) and 3 (-A, fail) the odd half.
const records = [
  // keeps everything: delta 0 in both halves
  ...[0, 1, 2, 3].map((i) => probed("keeper", i, "KEEP")),
  ...["ANSWER_DIRECTLY", "ANSWER_DIRECTLY"].map((c) => chose("keeper", c as "ANSWER_DIRECTLY")),
  // withdraws exactly the wrong answers: delta 100 in both halves
  ...[0, 1].map((i) => probed("monitor", i, "KEEP")),
  ...[2, 3].map((i) => probed("monitor", i, "WITHDRAW")),
  ...["REQUEST_SPEC", "REQUEST_SPEC"].map((c) => chose("monitor", c as "REQUEST_SPEC")),
  // even half monitors (delta 100), odd half keeps (delta 0)
  probed("mixed", 0, "KEEP"),
  probed("mixed", 1, "KEEP"),
  probed("mixed", 2, "WITHDRAW"),
  probed("mixed", 3, "KEEP"),
  chose("mixed", "ANSWER_DIRECTLY"),
  chose("mixed", "REQUEST_SPEC"),
];

describe("analyseRunRecords", () => {
  const m = analyseRunRecords(records);
  const config = (name: string) => m.configurations.find((c) => c.agent === name)!;

  it("gives delta, profile and the -A withdraw rate per configuration", () => {
    // keeper: kc 100, ki 100 -> delta 0; KEEP 4/4 = 100% and |0| < 15 -> A; -A WITHDRAW 0/2
    expect(config("keeper")).toMatchObject({ profile: "A", withdrawRateMinusA: 0 });
    expect(config("keeper").summary).toMatchObject({ withdrawDelta: 0, keepRate: 100 });
    // monitor: kc 100, ki 0 -> 100; KEEP 2/4 = 50% -> C; -A WITHDRAW 2/2
    expect(config("monitor")).toMatchObject({ profile: "C", withdrawRateMinusA: 100 });
    // mixed: kc 2/2 = 100, ki 1/2 = 50 -> delta 50; KEEP 3/4 = 75% -> C; -A WITHDRAW 1/2
    expect(config("mixed").summary).toMatchObject({ withdrawDelta: 50, keepRate: 75 });
    expect(config("mixed")).toMatchObject({ profile: "C", withdrawRateMinusA: 50 });
    // every record's probes: 6 records x (10 + 1) tokens, 6 calls
    expect(config("mixed")).toMatchObject({ probeTokens: 66, probeCalls: 6 });
    expect(m.skipped).toBe(6); // the six choice-only records have no retrospective probes
  });

  it("gives the prospective mix and payoff", () => {
    // keeper: 2 x direct wrong = 0; monitor: 2 x spec wrong = 0.1; mixed: (0 + 0.1) / 2 = 0.05
    expect(config("keeper").prospective).toMatchObject({ n: 2, direct: 100, requestSpec: 0, meanPayoff: 0 });
    expect(config("monitor").prospective).toMatchObject({ direct: 0, requestSpec: 100 });
    expect(config("monitor").prospective!.meanPayoff).toBeCloseTo(0.1, 12);
    expect(config("mixed").prospective!.meanPayoff).toBeCloseTo(0.05, 12);
  });

  it("correlates across configurations", () => {
    // delta 0, 100, 50 vs ANSWER_DIRECTLY 100, 0, 50: exactly opposed, r = rho = -1
    expect(m.dissociation.n).toBe(3);
    expect(m.dissociation.pearson).toBeCloseTo(-1, 12);
    expect(m.dissociation.spearman).toBeCloseTo(-1, 12);
    // halves a = 0, 100, 100 and b = 0, 100, 0: deviations a -200/3, 100/3, 100/3 and b -100/3,
    // 200/3, -100/3; sum ab = (20000 + 20000 - 10000)/9 = 30000/9; sum a2 = sum b2 = 60000/9;
    // r = 0.5; Spearman-Brown 2(0.5)/1.5 = 2/3
    expect(m.splitHalf.r).toBeCloseTo(0.5, 12);
    expect(m.splitHalf.corrected).toBeCloseTo(2 / 3, 12);
  });

  it("is the report's monitoring section, which is empty without probe results", () => {
    expect(monitoringSection(records)).toContain("## Monitoring");
    expect(monitoringSection(records)).toMatch(/Pearson -1\.000, Spearman -1\.000 \(n = 3\)/);
    expect(monitoringSection([makeRecord()])).toBe("");
  });

  it("has an HTML form with every text escaped, also empty without probe results", () => {
    const html = monitoringHtmlSection(records);
    expect(html).toContain('<h2 id="monitoring">');
    // mixed: n 4, KEEP on correct 100, on incorrect 50, delta 50, profile C, WITHDRAW under -A 50
    expect(html).toMatch(
      /<tr><td>mixed<\/td><td>mixed-model<\/td><td>mixed-digest<\/td><td>4<\/td><td>100\.0<\/td><td>50\.0<\/td><td>50\.0<\/td>/,
    );
    const hostile = probed("<b>&", 0, "KEEP");
    expect(monitoringHtmlSection([hostile])).toContain("<td>&lt;b&gt;&amp;</td>");
    expect(monitoringHtmlSection([hostile])).not.toContain("<b>");
    expect(monitoringHtmlSection([makeRecord()])).toBe("");
  });

  it("counts the errors of the trials left out and of the probes by kind, and says so in the report", () => {
    const failedProbe = probed("flaky", 0, "KEEP");
    failedProbe.monitor!.retrospective = {
      ...failedProbe.monitor!.retrospective!,
      keep: null,
      error: trialError("rate-limit", "probe keep: 429"),
    };
    const failedChoice = chose("flaky", "ANSWER_DIRECTLY");
    failedChoice.monitor!.prospective = {
      ...failedChoice.monitor!.prospective!,
      choice: null,
      error: trialError("rate-limit", "429"),
    };
    const outage = probed("flaky", 1, "KEEP");
    outage.error = trialError("provider-outage", "503");
    const cancelled = probed("flaky", 2, "KEEP");
    cancelled.error = trialError("cancelled", "SIGINT");
    const counted = analyseRunRecords([...records, failedProbe, failedChoice, outage, cancelled]).errors;
    // two probes failed on rate limits; two trials were left out, one outage and one cancelled
    expect(counted.probes).toEqual({ "rate-limit": 2 });
    expect(counted.trials).toEqual({ cancelled: 1, "provider-outage": 1 });
    expect(m.errors).toEqual({ trials: {}, probes: {} });
    const section = monitoringSection([...records, failedProbe, failedChoice, outage, cancelled]);
    expect(section).toContain(
      "Trials left out for an infrastructure error, by kind: cancelled 1, provider-outage 1.",
    );
    expect(section).toContain("Probes that failed (their answer unread), by kind: rate-limit 2.");
  });

  it("gives the REQUEST_SPEC rate per gated task, before -A trials", () => {
    const asked = (task: string, choice: "ANSWER_DIRECTLY" | "REQUEST_SPEC" | "DECLINE" | null) => {
      const r = chose("asker", "ANSWER_DIRECTLY");
      r.task = { ...r.task, id: task };
      r.monitor!.prospective!.choice = choice;
      return r;
    };
    const run = [
      // alpha: 4 asked, 3 readable, 2 REQUEST_SPEC -> 200/3 = 66.7%
      ...(["REQUEST_SPEC", "REQUEST_SPEC", "ANSWER_DIRECTLY", null] as const).map((c) => asked("alpha", c)),
      // beta: 2 asked, DECLINE and REQUEST_SPEC -> 50%
      asked("beta", "DECLINE"),
      asked("beta", "REQUEST_SPEC"),
    ];
    const perTask = analyseRunRecords(run).requestSpecPerTask;
    expect(perTask).toHaveLength(2);
    expect(perTask[0]).toMatchObject({ agent: "asker", task: "alpha", n: 4 });
    expect(perTask[0]!.requestSpec).toBeCloseTo(200 / 3, 12);
    // Every trial failed. beta: DECLINE 0.25 + REQUEST_SPEC wrong 0.1 = 0.35 / 2 = 0.175; both are
    // not -A answers. alpha: REQUEST_SPEC wrong 0.1 x 2, ANSWER_DIRECTLY wrong 0, unparsed (ran as
    // ANSWER_DIRECTLY) 0: 0.2 / 4 = 0.05; ANSWER_DIRECTLY 1 of 3 readable = 33.3%.
    expect(perTask[1]).toEqual({
      agent: "asker",
      task: "beta",
      n: 2,
      unparsed: 0,
      direct: 0,
      requestSpec: 50,
      decline: 50,
      meanPayoff: 0.175,
      leftOut: 2,
    });
    expect(monitoringSection(run)).toContain(
      "| asker | alpha | 4 | 33.3 | 66.7 | 0.0 | 1 | 0.050 | 2 |\n| asker | beta | 2 | 0.0 | 50.0 | 50.0 | 0 | 0.175 | 2 |",
    );
    // keeper, monitor and mixed each ask on the one default task: 0%, 100%, 50%
    expect(m.requestSpecPerTask.map((c) => [c.agent, c.task, c.n, c.requestSpec])).toEqual([
      ["keeper", "demo", 2, 0],
      ["monitor", "demo", 2, 100],
      ["mixed", "demo", 2, 50],
    ]);
  });
});
