// `kgate triage <pool>` end to end through the real bin on an item pool, with a scripted planner and
// scripted item replies served over the real Anthropic wire protocol by the loopback model server
// (scripted output, not a real model's behaviour): phase 0, plans per r x alpha x framing, parsing
// with one re-ask, regimes U/E, eta, D/W, the report files, resuming after failed plan calls, --live
// and the budget re-solve (--resolve).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scaffoldTask } from "../src/task/index.ts";
import { PlanRecord, TriageSummary } from "../src/triage/index.ts";
import { KGATE_BIN } from "./support/cli.ts";
import { type ScriptStep, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";

const POOL = [
  { id: "a", prompt: "Compute 17 + 25.", answer: 42, checker: "number" },
  { id: "b", prompt: "Compute 9 * 8.", answer: 72, checker: "number" },
  { id: "c", prompt: "Name the capital of France.", answer: "Paris" },
  { id: "d", prompt: "Which is prime?", answer: "C", checker: "choice", choices: ["A", "B", "C", "D"] },
  { id: "x", prompt: "State the overhead rate of the unpublished spec.", answer: "12%", unsolvable: true },
  {
    id: "y",
    prompt: "State the escrow cushion of the unpublished manual.",
    answer: "2 months",
    unsolvable: true,
  },
];

/** Item replies by prompt start: the answer written and the output tokens reported. b is answered wrong. */
const ITEM_REPLIES: Record<string, { text: string; output: number }> = {
  "Compute 17": { text: "17 + 25 = 42\nANSWER: 42", output: 300 },
  "Compute 9": { text: "9 * 8 = 71\nANSWER: 71", output: 500 },
  "Name the": { text: "ANSWER: Paris", output: 200 },
  "Which is": { text: "ANSWER: C", output: 1000 },
  "State the overhead": { text: "ANSWER: 12%", output: 800 },
  "State the escrow": { text: "ANSWER: 2 months", output: 400 },
};
const COST: Record<string, number> = { a: 300, b: 500, c: 200, d: 1000, x: 800, y: 400 };

type Message = { role: string; content: string | Array<{ type: string; text?: string }> };
const textOf = (m: Message) =>
  typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join("");

/**
 * The scripted planner, by the framing's role sentence:
 * neutral: leaves out units whose text says "unpublished", takes the rest cheapest first with
 *   cost + 50 tokens each while the allocations fit B;
 * agent: first a reply that is not a plan, then (after the re-ask) every unit in prompt order at
 *   100 tokens, with a duplicate of the first id and an unknown id "zzz";
 * exam: never a plan.
 */
function planReply(prompt: string, turn: number): string {
  const budget = Number(/You have (\d+) output tokens/.exec(prompt)![1]);
  const units = [...prompt.matchAll(/^### (\S+) \(value 1\)\n(.*)$/gm)].map((m) => ({
    id: m[1]!,
    text: m[2]!,
  }));
  if (prompt.startsWith("You are a planner")) {
    const plan: Array<{ id: string; tokens: number }> = [];
    let allocated = 0;
    for (const u of units
      .filter((u) => !u.text.includes("unpublished"))
      .sort((p, q) => COST[p.id]! - COST[q.id]!)) {
      if (allocated + COST[u.id]! + 50 > budget) break;
      allocated += COST[u.id]! + 50;
      plan.push({ id: u.id, tokens: COST[u.id]! + 50 });
    }
    return `Here is my plan:\n\`\`\`json\n${JSON.stringify({ plan })}\n\`\`\``;
  }
  if (prompt.startsWith("You are an autonomous agent") && turn === 1) {
    const first = units[0]!.id;
    const plan = [
      { id: first, tokens: 100 },
      { id: first, tokens: 100 },
      { id: "zzz", tokens: 5 },
    ];
    for (const u of units.slice(1)) plan.push({ id: u.id, tokens: 100 });
    return JSON.stringify({ plan });
  }
  return "I would start with the easy ones and see how it goes.";
}

const RESOLVE_OPENING = /^You have a budget of (\d+) tokens for this question\.\n\n/;

/** The script of the loopback server; while `outage.exam` is set, exam-framed plan calls get a 500. */
function script(outage: { exam: boolean }) {
  return (request: SeenRequest): ScriptStep => {
    const messages = request.body.messages as Message[];
    const first = textOf(messages[0]!);
    if (first.includes("## Tasks")) {
      if (outage.exam && first.startsWith("You are a student"))
        return { status: 500, message: "scripted outage" };
      const text = planReply(first, messages.filter((m) => m.role === "assistant").length);
      return { text, usage: { output: 120 } };
    }
    // a re-solve prompt states a budget first; told one, the script answers in half its usual tokens
    const stated = RESOLVE_OPENING.exec(first);
    const body = stated ? first.slice(stated[0].length) : first;
    const reply = ITEM_REPLIES[Object.keys(ITEM_REPLIES).find((k) => body.startsWith(k))!]!;
    const output = stated ? Math.floor(reply.output / 2) : reply.output;
    // a limit below what the reply takes cuts it off there, as a provider would
    const limit = Number(request.body.max_tokens);
    if (limit < output) return { text: reply.text.slice(0, 4), usage: { output: limit }, truncated: true };
    return { text: reply.text, usage: { output } };
  };
}

function kgateAsync(args: string[], cwd: string) {
  const child = spawn(process.execPath, [KGATE_BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", KGATE_TRIAGE_TEST_KEY: "sk-triage" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  child.stderr.on("data", (c) => {
    stderr += c;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

function project(baseUrl: string) {
  const paths = tempProject();
  mkdirSync(path.join(paths.root, "items"));
  writeFileSync(
    path.join(paths.root, "items", "mini.jsonl"),
    `${POOL.map((i) => JSON.stringify(i)).join("\n")}\n`,
  );
  writeJson(paths.config, {
    agents: {
      planner: {
        harness: "builtin",
        provider: "anthropic",
        model: "claude-scripted",
        baseUrl,
        apiKeyEnv: "KGATE_TRIAGE_TEST_KEY",
        retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      },
    },
  });
  return paths;
}

const ARGS = ["triage", "mini", "--agent", "planner", "--alpha", "0.5,1", "--inject", "0", "--inject", "0.5"];

const isPlanCall = (r: SeenRequest) => textOf((r.body.messages as Message[])[0]!).includes("## Tasks");

describe("kgate triage on an item pool", () => {
  it("runs phase 0, asks for plans, scores them, writes the report, and resumes failed plans", {
    timeout: 120_000,
  }, async () => {
    const outage = { exam: true };
    const server = await startModelServer(script(outage), { requireKey: "sk-triage" });
    try {
      const paths = project(server.anthropicUrl);
      const first = await kgateAsync([...ARGS, "--run-id", "t1", "--json"], paths.root);
      // the exam plans hit a scripted 500 with no retries left: recorded as errors, the rest goes on
      expect(first.stderr).toContain("framing=exam: error (provider-outage):");
      expect(first.stderr).toContain("--resume t1");
      expect(first.code).toBe(1);
      const items = server.requests.filter((r) => !isPlanCall(r));
      expect(items).toHaveLength(6);
      expect(items[0]!.body).toMatchObject({ temperature: 0, max_tokens: 16384 });

      const run = path.join(paths.root, "runs", "t1");
      // (units run two at a time, so the file holds them in the order they ended: sorted by id here)
      const phase0 = readFileSync(path.join(run, "phase0.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .sort((a, b) => a.id.localeCompare(b.id));
      expect(phase0.map((r) => [r.id, r.cost, r.correct])).toEqual([
        ["a", 300, true],
        ["b", 500, false],
        ["c", 200, true],
        ["d", 1000, true],
        ["x", 800, false],
        ["y", 400, false],
      ]);
      expect(phase0[0]).toMatchObject({
        configuration: { name: "planner" },
        model: "claude-scripted",
        kgateVersion: "0.1.0",
      });
      // 2 ratios x 2 alphas x 2 framings that answered; the agent framing needed a re-ask each time
      expect(readFileSync(path.join(run, "plans.jsonl"), "utf8").trim().split("\n")).toHaveLength(8);

      outage.exam = false;
      server.requests.length = 0;
      const resumed = await kgateAsync(
        ["triage", "mini", "--agent", "planner", "--resume", "t1", "--json"],
        paths.root,
      );
      expect(resumed.stderr).not.toContain("error");
      expect(resumed.code).toBe(0);
      // only the four exam plans are asked again, each with its one re-ask: 4 x 2 calls, no unit re-run
      expect(server.requests).toHaveLength(8);
      expect(server.requests.every(isPlanCall)).toBe(true);

      const summary = TriageSummary.parse(JSON.parse(resumed.stdout));
      const plans = readFileSync(path.join(run, "plans.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => PlanRecord.parse(JSON.parse(l)));
      expect(plans).toHaveLength(12);
      const plan = (key: string) => plans.find((p) => p.key === key)!;

      // r = 0, alpha = 0.5: costs 300 + 500 + 200 + 1000 = 2000, B = floor(0.5 * 2000) = 1000.
      // V_oracle: correct a (300), c (200), d (1000); cheapest first 200 + 300 = 500, + 1000 > 1000 -> 2.
      // V_random, the 24 orders of a, b, c, d exactly: d first -> 1000 fits, the next crosses -> 1 (6 orders);
      // otherwise a + b + c = 1000 fits and d crosses, so V = correct units before d:
      // d second: a, b, c before it (2 orders each) -> 1, 0, 1 -> 4; d third: pairs {a,b} 1, {a,c} 2, {b,c} 1,
      // 2 orders each -> 8; d last: 2 x 6 = 12. (6 + 4 + 8 + 12) / 24 = 30 / 24 = 1.25.
      const neutral = plan("r=0 alpha=0.5 framing=neutral");
      expect(neutral.budget).toBe(1000);
      // neutral: c 250, a 350 (600); b would make 1150 > 1000. U: 200, 500 -> 2; E: 200 <= 250, 300 <= 350 -> 2
      expect(neutral.plan?.steps).toEqual([
        { id: "c", tokens: 250 },
        { id: "a", tokens: 350 },
      ]);
      expect(neutral.scores).toEqual({
        vOracle: 2,
        vRandom: 1.25,
        vU: 2,
        vE: 2,
        etaU: 1, // (2 - 1.25) / (2 - 1.25)
        etaE: 1,
        regretU: 0,
        regretE: 0,
      });
      expect(neutral.detection).toBeNull(); // no unsolvable unit at r = 0
      expect(neutral.waste).toBe(0);

      // agent: a 100 (a again and zzz dropped), b, c, d 100 each = 400 <= 1000.
      // U: a 300 (+1), b 800, c 1000 (+1), d 2000 > 1000 stop -> 2. E: every cost is over 100 -> 0.
      const agent = plan("r=0 alpha=0.5 framing=agent");
      expect(agent.replies).toHaveLength(2);
      expect(agent.replies[0]!.text).toContain("easy ones");
      expect(agent.plan?.dropped).toEqual([
        { index: 1, id: "a", reason: "duplicate id" },
        { index: 2, id: "zzz", reason: "unknown id" },
      ]);
      expect(agent.plan?.allocated).toBe(400);
      expect(agent.scores).toMatchObject({ vU: 2, vE: 0, etaU: 1, regretE: 1 });
      expect(agent.scores.etaE).toBeCloseTo(-5 / 3, 12); // (0 - 1.25) / 0.75

      // exam: not a plan, twice -> V = 0 under both regimes; eta = (0 - 1.25) / 0.75 = -5/3
      const exam = plan("r=0 alpha=0.5 framing=exam");
      expect(exam.plan).toBeNull();
      expect(exam.failure).toBe("no JSON object in the reply");
      expect(exam.replies).toHaveLength(2);
      expect(exam.scores).toMatchObject({ vU: 0, vE: 0, regretU: 1 });

      // alpha = 1: B = 2000 = every cost, every order fits, V_random = V_oracle = 3: eta undefined
      expect(plan("r=0 alpha=1 framing=neutral").scores).toMatchObject({
        vOracle: 3,
        vRandom: 3,
        etaU: null,
        etaE: null,
      });

      // r = 0.5: round(0.5 * 4) = 2 units replaced by x and y.
      const injected = plan("r=0.5 alpha=0.5 framing=neutral");
      expect(injected.unsolvable.sort()).toEqual(["x", "y"]);
      expect(injected.units).toHaveLength(4);
      // the neutral script leaves out the two "unpublished" units: D = 2 / 2 = 1, W = 0
      expect(injected.detection).toBe(1);
      expect(injected.waste).toBe(0);
      // the agent script plans all four at 100 each: D = 0 / 2 = 0, W = (100 + 100) / 400 = 0.5
      const greedy = plan("r=0.5 alpha=0.5 framing=agent");
      expect(greedy.detection).toBe(0);
      expect(greedy.waste).toBe(0.5);

      // the summary: main table at r = 0, eta undefined at alpha = 1 counted and left out
      const row = (alpha: number, regime: string, framing: string) =>
        summary.main.find((r) => r.alpha === alpha && r.regime === regime && r.framing === framing)!;
      expect(row(0.5, "E", "agent").eta).toBeCloseTo(-5 / 3, 12);
      expect(row(1, "U", "neutral")).toMatchObject({ plans: 1, eta: null, etaUndefined: 1 });
      expect(summary.injection.find((r) => r.ratio === 0.5 && r.framing === "neutral")).toMatchObject({
        detection: 1,
        waste: 0,
      });
      // readable plans: neutral and agent at 2 ratios x 2 alphas = 8; exam's 4 unreadable
      expect(summary.compliance).toMatchObject({ plans: 12, unreadable: 4 });
      expect(summary.phase2).toBe("simulated");

      const md = readFileSync(path.join(run, "report.md"), "utf8");
      expect(md).toContain("| 0.5 | E | agent | 1 | -1.667 | 0 | 1.000 |");
      expect(md).toContain("I would start with the easy ones");
      expect(readFileSync(path.join(run, "report.svg"), "utf8")).toMatch(/^<svg [^>]*>[\s\S]*<polyline/);
    } finally {
      await server.close();
    }
  });

  it("gives the same phase 0 and plans at --concurrency 3 as one at a time", {
    timeout: 120_000,
  }, async () => {
    const server = await startModelServer(script({ exam: false }), { requireKey: "sk-triage" });
    try {
      const paths = project(server.anthropicUrl);
      // two runs of their own, side by side (the scripted server answers by what is asked)
      const [one, three] = await Promise.all([
        kgateAsync([...ARGS, "--concurrency", "1", "--run-id", "c1"], paths.root),
        kgateAsync([...ARGS, "--concurrency", "3", "--run-id", "c3"], paths.root),
      ]);
      expect([one.code, three.code]).toEqual([0, 0]);
      // what each run recorded, in key order and without the times (the order units end in may differ)
      const recorded = (run: string, file: string, key: string) =>
        readFileSync(path.join(paths.root, "runs", run, file), "utf8")
          .trim()
          .split("\n")
          .map((l) => {
            const { finishedAt: _at, ...rest } = JSON.parse(l);
            return rest;
          })
          .sort((a, b) => String(a[key]).localeCompare(String(b[key])));
      expect(recorded("c3", "phase0.jsonl", "id")).toEqual(recorded("c1", "phase0.jsonl", "id"));
      expect(recorded("c3", "plans.jsonl", "key")).toEqual(recorded("c1", "plans.jsonl", "key"));
      // 2 ratios x 2 alphas x 3 framings
      expect(recorded("c1", "plans.jsonl", "key")).toHaveLength(12);
    } finally {
      await server.close();
    }
  });

  it("runs regimes E and U live with --live: E with a_i as max_tokens, U as phase 0 capped at what is left of B", {
    timeout: 120_000,
  }, async () => {
    const server = await startModelServer(script({ exam: false }), { requireKey: "sk-triage" });
    try {
      const paths = project(server.anthropicUrl);
      const args = ["triage", "mini", "--agent", "planner", "--alpha", "0.45", "--framing", "neutral,agent"];
      // one unit and plan at a time: the calls below are asserted in the order the walk makes them
      const ran = await kgateAsync(
        [...args, "--live", "--concurrency", "1", "--run-id", "l1", "--json"],
        paths.root,
      );
      expect(ran.code).toBe(0);
      const summary = TriageSummary.parse(JSON.parse(ran.stdout));
      // r = 0: units a 300 (right), b 500 (wrong), c 200 (right), d 1000 (right); B = floor(0.45 * 2000) = 900.
      // after phase 0 (6 items), per plan: E live (max_tokens a_i), then U live (max_tokens = B - spent).
      // neutral plan [c 250, a 350]: E 250, 350; U c: 900 (takes 200), a: 900 - 200 = 700.
      // agent plan [a, b, c, d at 100]: E 100 x 4; U a: 900 (300), b: 600 (500), c: 100 (cut: needs 200).
      const live = server.requests.slice(6).filter((r) => !isPlanCall(r));
      expect(live.map((r) => r.body.max_tokens)).toEqual([
        250, 350, 900, 700, 100, 100, 100, 100, 900, 600, 100,
      ]);
      const plans = summary.plans;
      // neutral E: c with 250 (takes 200: within, correct), a with 350 (takes 300: within, correct) -> 2
      const neutral = plans.find((p) => p.framing === "neutral")!;
      expect(neutral.live).toMatchObject({ vE: 2, etaE: 1, regretE: 0 });
      expect(neutral.live!.steps.map((st) => [st.id, st.limit, st.cost, st.within, st.correct])).toEqual([
        ["c", 250, 200, true, true],
        ["a", 350, 300, true, true],
      ]);
      // V_oracle = 2 (a + c = 500 <= 900; d would make 1500). V_random (U over the 24 orders): d (1000 > 900)
      // ends every order it is reached in; before it, any two of a, b, c fit (<= 800) and the third
      // crosses (1000). With k units before d (k = 0..3, each 1/4): 0, 2/3, 4/3, 4/3 right ones expected,
      // so V_random = (10/3) / 4 = 5/6.
      // neutral U live: c 200 (total 200), a 300 (500): V 2, eta = (2 - 5/6) / (2 - 5/6) = 1, regret 0
      expect(neutral.liveU).toMatchObject({ vU: 2, etaU: 1, regretU: 0 });
      expect(neutral.liveU!.steps.map((st) => [st.id, st.limit, st.cost, st.correct, st.truncated])).toEqual([
        ["c", 900, 200, true, false],
        ["a", 700, 300, true, false],
      ]);
      // agent E: a, b, c, d at 100 each; every reply needs more and is cut at 100 -> V = 0, 0 of 4 within
      const agent = plans.find((p) => p.framing === "agent")!;
      expect(agent.live).toMatchObject({ vE: 0, regretE: 1 });
      expect(agent.live!.steps.every((st) => st.cost === 100 && !st.within)).toBe(true);
      // agent U live: a 300 (total 300, right), b 500 (800, wrong), c cut at 100 = what is left (900):
      // truncated, scores 0, the run stops before d. V 1; eta = (1 - 5/6) / (2 - 5/6) = 1/7; regret 0.5
      expect(agent.liveU!.steps.map((st) => [st.id, st.limit, st.cost, st.correct, st.truncated])).toEqual([
        ["a", 900, 300, true, false],
        ["b", 600, 500, false, false],
        ["c", 100, 100, false, true],
      ]);
      expect(agent.liveU).toMatchObject({ vU: 1, regretU: 0.5 });
      expect(agent.liveU!.etaU).toBeCloseTo(1 / 7, 12);
      // the simulation agrees (the scripted costs do not vary between runs): U truncates c at 300+500+200 > 900
      expect(agent.scores.vU).toBe(1);
      // live compliance: 2 of the 6 units run finished within their allocation; U ran 2 + 3 units, 1 plan cut
      expect(summary.compliance).toMatchObject({ liveRan: 6, liveWithin: 2, liveURan: 5, liveUTruncated: 1 });
      expect(summary.main.find((r) => r.regime === "E-live" && r.framing === "neutral")).toMatchObject({
        eta: 1,
      });
      expect(summary.main.find((r) => r.regime === "U-live" && r.framing === "agent")!.eta).toBeCloseTo(
        1 / 7,
        12,
      );
      const md = readFileSync(path.join(paths.root, "runs", "l1", "report.md"), "utf8");
      expect(md).toContain("Live E: 2 of 6 units run finished within their allocation.");
      expect(md).toContain("Live U: 5 units run; 1 plans cut where the running total passed B.");
      expect(md).toContain("| 0.45 | U-live | agent | 1 | 0.143 | 0 | 0.500 |");
      expect(md).toContain("U-live and E-live rows are live");
      expect(md).toContain("V_U-live 1, V_E-live 0,");
    } finally {
      await server.close();
    }
  });

  it("runs the budget re-solve with --resolve: each planned item again with a_i in its prompt and as max_tokens", {
    timeout: 120_000,
  }, async () => {
    const server = await startModelServer(script({ exam: false }), { requireKey: "sk-triage" });
    try {
      const paths = project(server.anthropicUrl);
      const args = ["triage", "mini", "--agent", "planner", "--alpha", "0.5", "--framing", "neutral,agent"];
      // one unit and plan at a time: the calls below are asserted in the order the walk makes them
      const ran = await kgateAsync(
        [...args, "--resolve", "--concurrency", "1", "--run-id", "r1", "--json"],
        paths.root,
      );
      expect(ran.code).toBe(0);
      const summary = TriageSummary.parse(JSON.parse(ran.stdout));
      // after phase 0 (6 items): neutral plan (1 call) + its 2 re-solves; agent plan (2 calls) + 4 re-solves
      const resolves = server.requests.slice(6).filter((r) => !isPlanCall(r));
      expect(resolves.map((r) => r.body.max_tokens)).toEqual([250, 350, 100, 100, 100, 100]);
      // the prompt: the budget sentence, a blank line, then the item's phase-0 prompt unchanged
      expect(textOf((resolves[2]!.body.messages as Message[])[0]!)).toBe(
        "You have a budget of 100 tokens for this question.\n\nCompute 17 + 25.\n\nEnd your reply with one line of the form `ANSWER: <your answer>`.",
      );
      // phase 0 was asked without it
      expect(textOf((server.requests[0]!.body.messages as Message[])[0]!)).toMatch(/^Compute 17 \+ 25\./);
      // told a budget, the script takes half its phase-0 tokens: a 150, b 250, c 100, d 500 (x, y unplanned).
      // neutral (B = 1000): c with 250 (100: within, correct), a with 350 (150: within, correct) -> V 2
      const plans = summary.plans;
      const neutral = plans.find((p) => p.framing === "neutral")!;
      expect(neutral.live).toBeNull(); // --resolve without --live runs no plain live E
      expect(neutral.resolve).toMatchObject({ vE: 2, etaE: 1, regretE: 0 }); // (2 - 1.25) / (2 - 1.25)
      expect(neutral.resolve!.steps.map((st) => [st.id, st.limit, st.cost, st.within, st.correct])).toEqual([
        ["c", 250, 100, true, true],
        ["a", 350, 150, true, true],
      ]);
      // agent: a, b, c, d at 100 each (400 <= 1000): a 150 > 100 cut, b 250 cut, c 100 <= 100 within and
      // correct, d 500 cut -> V 1; eta = (1 - 1.25) / (2 - 1.25) = -1/3, regret = (2 - 1) / 2 = 0.5
      const agent = plans.find((p) => p.framing === "agent")!;
      expect(agent.resolve!.steps.map((st) => [st.id, st.cost, st.within, st.correct])).toEqual([
        ["a", 100, false, false],
        ["b", 100, false, false],
        ["c", 100, true, true],
        ["d", 100, false, false],
      ]);
      expect(agent.resolve).toMatchObject({ vE: 1, regretE: 0.5 });
      expect(agent.resolve!.etaE).toBeCloseTo(-1 / 3, 12);
      // re-solve compliance: 2 + 1 = 3 of the 6 units finished within their stated allocation
      expect(summary.resolve).toBe(true);
      expect(summary.compliance).toMatchObject({ resolveRan: 6, resolveWithin: 3, resolveShare: 0.5 });
      expect(summary.compliance).toMatchObject({ liveRan: 0, liveWithin: 0 });
      const row = summary.main.find((r) => r.regime === "E-resolve" && r.framing === "agent")!;
      expect(row.eta).toBeCloseTo(-1 / 3, 12);
      expect(summary.main.some((r) => r.regime === "E-live")).toBe(false);
      const md = readFileSync(path.join(paths.root, "runs", "r1", "report.md"), "utf8");
      expect(md).toContain("| 0.5 | E-resolve | agent | 1 | -0.333 | 0 | 0.500 |");
      expect(md).toContain(
        "Re-solve: 3 of 6 units run with their allocation stated finished within it (share 0.500).",
      );
      expect(md).toContain("V_E 0, eta_U 1.000, eta_E -1.667, V_resolve 1,");
    } finally {
      await server.close();
    }
  });

  // Each refusal below is one run of the bin (a couple of seconds at load): one test each.
  it("names the file and line of a bad item, with exit 2", async () => {
    const paths = project("http://127.0.0.1:9");
    writeFileSync(
      path.join(paths.root, "items", "bad.jsonl"),
      '{"id": "a", "prompt": "q", "answer": 1}\n{"id": "b"}\n',
    );
    const bad = await kgateAsync(["triage", "bad", "--agent", "planner"], paths.root);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/items\/bad\.jsonl:2 \(prompt\)/);
  });

  it("refuses an unknown agent, with exit 2", async () => {
    const paths = project("http://127.0.0.1:9");
    const unknown = await kgateAsync(["triage", "mini", "--agent", "nobody"], paths.root);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown agent configuration "nobody"');
  });

  it("refuses an injection ratio outside [0, 1], with exit 2", async () => {
    const paths = project("http://127.0.0.1:9");
    const ratio = await kgateAsync(["triage", "mini", "--agent", "planner", "--inject", "1.5"], paths.root);
    expect(ratio.code).toBe(2);
    expect(ratio.stderr).toContain("--inject takes numbers in [0, 1]");
  });

  it("refuses a ratio that needs more unsolvable items than the pool has, before any call", async () => {
    const paths = project("http://127.0.0.1:9");
    // r = 1 replaces all 4 answerable items but the pool has 2 unsolvable ones: refused before any call
    const short = await kgateAsync(
      ["triage", "mini", "--agent", "planner", "--inject", "1", "--run-id", "s1"],
      paths.root,
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("replaces 4 of 4 units but the pool has only 2 unsolvable ones");
    expect(short.stderr).not.toContain("phase 0");
    expect(existsSync(path.join(paths.root, "runs", "s1"))).toBe(false);
  });

  it("refuses the re-solve of a gated task with a harness that keeps its own system prompt", async () => {
    const paths = project("http://127.0.0.1:9");
    // the re-solve of a gated task states a_i in the agent's system prompt, which OpenCode keeps as
    // its own: refused before any call
    scaffoldTask(paths, { id: "gated", gate: "convention" });
    const config = JSON.parse(readFileSync(paths.config, "utf8"));
    config.agents.oc = { harness: "opencode", provider: "openai", model: "gpt-scripted" };
    writeJson(paths.config, config);
    const tasks = await kgateAsync(
      ["triage", "tasks:gated", "--agent", "oc", "--resolve", "--run-id", "g1"],
      paths.root,
    );
    expect(tasks.code).toBe(2);
    expect(tasks.stderr).toContain("harness opencode keeps as its own");
    expect(existsSync(path.join(paths.root, "runs", "g1"))).toBe(false);
  });
});
