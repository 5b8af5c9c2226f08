import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { loadValidTask } from "../src/task/index.ts";
import { PlanRecord, TriageSummary } from "../src/triage/index.ts";
import { copyLibraryTask, oracleOutput } from "./support/library-task.ts";
import { type ScriptStep, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const _REPO = projectPaths(path.resolve(import.meta.dirname, ".."));
const IDS = ["bom-costing", "mortgage-escrow"];
const BUDGET_SENTENCE = /You have a budget of (\d+) tokens for this task\./;

interface Known {
  instruction: string;
  artefact: string;
  output: string;
  correct: string;
  /** The header alone: no rows, so the verifier fails it. */
  wrong: string;
}

type Block = { type: string; text?: string; name?: string };
type Message = { role: string; content: string | Block[] };
const textOf = (c: unknown): string =>
  typeof c === "string" ? c : Array.isArray(c) ? (c as Block[]).map((b) => b.text ?? "").join("") : "";

/**
 * The scripted planner: units whose file list holds their specification first, then the others;
 * each of the others gets 100 tokens; with two specification units the first gets `lead` (500
 * unless the test changes it) and the second the rest of B, with one it gets all that is left.
 */
function planReply(prompt: string, known: Known[], lead: number): string {
  const budget = Number(/You have (\d+) output tokens/.exec(prompt)![1]);
  const blocks = prompt.split(/^### /m).slice(1);
  const ids = blocks.map((b) => /^(\S+) \(value 1\)/.exec(b)![1]!);
  const spec = ids.filter((_, i) => known.some((k) => blocks[i]!.includes(k.artefact)));
  const others = ids.filter((id) => !spec.includes(id));
  const rest = budget - 100 * others.length;
  const tokens = spec.length === 2 ? [lead, rest - lead] : [rest];
  return JSON.stringify({
    plan: [...spec.map((id, i) => ({ id, tokens: tokens[i] })), ...others.map((id) => ({ id, tokens: 100 }))],
  });
}

/**
 * The scripted agent. Every turn reports 100 input tokens (which the output budget must not count). Not told a budget, it spends 150 output
 * tokens a turn: under +A it reads the listed specification, writes the right answer, then calls
 * finish (3 turns); under -A it writes a wrong answer, then calls finish (2 turns). Told a budget
 * in its system prompt, it spends 80 a turn and writes and finishes in one turn (+A: 2 turns, -A: 1).
 */
function agentStep(request: SeenRequest, known: Known[]): ScriptStep {
  const system = textOf(request.body.system);
  const messages = request.body.messages as Message[];
  const task = known.find((k) => k.instruction === textOf(messages[0]!.content))!;
  const calls = messages.flatMap((m) =>
    m.role === "assistant" && Array.isArray(m.content)
      ? m.content.filter((b) => b.type === "tool_use").map((b) => b.name!)
      : [],
  );
  const told = BUDGET_SENTENCE.test(system);
  const usage = { input: 100, output: told ? 80 : 150 };
  const finish = { name: "finish", input: { summary: "wrote the result" } };
  const write = (content: string) => ({ name: "write_file", input: { path: task.output, content } });
  const last = calls.at(-1);
  if (last === undefined && system.includes(task.artefact))
    return { text: "reading", toolCalls: [{ name: "read_file", input: { path: task.artefact } }], usage };
  if (last === undefined || last === "read_file") {
    const content = last === "read_file" ? task.correct : task.wrong;
    return { text: "writing", toolCalls: told ? [write(content), finish] : [write(content)], usage };
  }
  return { text: "done", toolCalls: [finish], usage };
}

function scriptFor(known: Known[], planner: { lead: number }) {
  return (request: SeenRequest): ScriptStep => {
    const first = textOf((request.body.messages as Message[])[0]!.content);
    if (first.includes("## Tasks"))
      return { text: planReply(first, known, planner.lead), usage: { input: 10, output: 80 } };
    return agentStep(request, known);
  };
}

const lines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("kgate triage --live --resolve on gated tasks", () => {
  it("runs each planned task unit as a trial with its allocation as the agent's token budget", {
    timeout: 600_000,
  }, async () => {
    sandboxImage();
    const paths = tempProject();
    for (const id of IDS) copyLibraryTask(paths, id);
    const known: Known[] = IDS.map((id) => {
      const task = loadValidTask(paths, id);
      const output = task.spec.outputs[0]!.path;
      const correct = oracleOutput(task);
      return {
        instruction: task.instruction.toString("utf8"),
        artefact: task.spec.artefact.path,
        output,
        correct,
        wrong: `${correct.split("\n")[0]}\n`,
      };
    });
    const planner = { lead: 500 };
    const server = await startModelServer(scriptFor(known, planner), { requireKey: "sk-live" });
    try {
      writeJson(paths.config, {
        agents: {
          frontier: {
            harness: "builtin",
            provider: "anthropic",
            model: "frontier-scripted",
            baseUrl: server.anthropicUrl,
            apiKeyEnv: "KGATE_TRIAGE_LIVE_KEY",
            retry: { maxRetries: 0 },
          },
        },
      });
      const env = { KGATE_TRIAGE_LIVE_KEY: "sk-live" };
      const base = [
        "--root",
        paths.root,
        "triage",
        "tasks:bom-costing,mortgage-escrow",
        "--agent",
        "frontier",
      ];
      // one unit and plan at a time: the calls below are asserted in the order the protocol makes them
      const args = [
        ...base,
        "--alpha",
        "0.75",
        "--framing",
        "neutral",
        "--inject",
        "0,0.5",
        "--concurrency",
        "1",
      ];
      const ran = await kgateAsync([...args, "--live", "--resolve", "--run-id", "L1", "--json"], env);
      expect(ran.stderr).not.toContain("error");
      expect(ran.code).toBe(0);
      const run = path.join(paths.runs, "L1");

      // phase 0, not told a budget: +A 3 turns x 150 = 450 output tokens, -A 2 x 150 = 300
      expect(lines(path.join(run, "phase0.jsonl")).map((r) => [r.id, r.cost, r.correct])).toEqual([
        ["bom-costing+A", 450, true],
        ["bom-costing-A", 300, false],
        ["mortgage-escrow+A", 450, true],
        ["mortgage-escrow-A", 300, false],
      ]);
      const phase0Digest = lines(path.join(run, "trials.jsonl"))[0].agent.digest;

      const plans = lines(path.join(run, "plans.jsonl")).map((l) => PlanRecord.parse(l));
      const at = (ratio: number) => plans.find((p) => p.ratio === ratio)!;
      const step = (s: PlanRecord["live"]) =>
        s!.steps.map((st) => [st.id, st.limit, st.cost, st.within, st.correct, st.stopReason]);

      // r = 0: the two +A units, B = floor(0.75 * 900) = 675; plan [bom-costing+A 500, mortgage-escrow+A 175].
      const zero = at(0);
      expect(zero.budget).toBe(675);
      expect(zero.plan?.steps).toEqual([
        { id: "bom-costing+A", tokens: 500 },
        { id: "mortgage-escrow+A", tokens: 175 },
      ]);
      // simulated E: 450 <= 500 and correct (1), 450 > 175 (0): V_E = 1; oracle 1, random 1 (every order
      // solves its first unit, 900 > 675 stops it): eta undefined
      expect(zero.scores).toMatchObject({ vOracle: 1, vRandom: 1, vE: 1, etaE: null, regretE: 0 });
      // live E, the agent's output-token budget = a_i (150 output a turn; the 100 input tokens a turn do
      // not count: a budget over all tokens, 250 a turn, would stop bom-costing+A at 500 after 2 turns):
      // bom-costing+A at 500: 150, 300 < 500 go on, 450 finishes; 450 <= 500: within, and correct.
      // mortgage-escrow+A at min(175, 675 - 500) = 175: 150 < 175 goes on, 300 >= 175 stops it on the budget
      // after writing the right file: the verdict passes but the unit is not within, so it scores 0.
      expect(step(zero.live)).toEqual([
        ["bom-costing+A", 500, 450, true, true, "finish"],
        ["mortgage-escrow+A", 175, 300, false, false, "token-budget"],
      ]);
      expect(zero.live).toMatchObject({ vE: 1, etaE: null, regretE: 0 });
      // live U: each trial as phase 0 ran it, its output-token budget = what is left of B. bom-costing+A
      // at 675: 450 finishes (total 450, correct); mortgage-escrow+A at 675 - 450 = 225: 150 < 225 goes
      // on, 300 >= 225 stops it; the total 750 > 675: truncated, scores 0. V_U 1 (simulated: the same)
      const uStep = (s: PlanRecord["liveU"]) =>
        s!.steps.map((st) => [st.id, st.limit, st.cost, st.correct, st.truncated, st.stopReason]);
      expect(uStep(zero.liveU)).toEqual([
        ["bom-costing+A", 675, 450, true, false, "finish"],
        ["mortgage-escrow+A", 225, 300, false, true, "token-budget"],
      ]);
      expect(zero.liveU).toMatchObject({ vU: 1, etaU: null, regretU: 0 });
      expect(zero.scores.vU).toBe(1);
      expect(zero.liveU!.steps[0]!.trial).toMatch(/^live-u\/r0-alpha0\.75-neutral\//);
      // the re-solve (told its a_i, the scripted agent spends 80 output tokens a turn): both finish in
      // 2 turns, 160 output tokens, within 500 and within 175: V = 2, regret (1 - 2) / 1 = -1 (it beats
      // the oracle of phase-0 costs, which it ran untold)
      expect(step(zero.resolve)).toEqual([
        ["bom-costing+A", 500, 160, true, true, "finish"],
        ["mortgage-escrow+A", 175, 160, true, true, "finish"],
      ]);
      expect(zero.resolve).toMatchObject({ vE: 2, etaE: null, regretE: -1 });

      // r = 0.5: one +A unit replaced by its -A twin; B = floor(0.75 * (450 + 300)) = 562; plan
      // [X+A 462, Y-A 100]. Oracle 1; random: +A first 1, -A first 300 then 750 > 562: 0, so 0.5.
      const half = at(0.5);
      const solvable = half.units.find((u) => u.endsWith("+A"))!;
      const twin = half.units.find((u) => u.endsWith("-A"))!;
      expect(half.budget).toBe(562);
      expect(half.plan?.steps).toEqual([
        { id: solvable, tokens: 462 },
        { id: twin, tokens: 100 },
      ]);
      // D = 0 (the twin is planned), W = 100 / 562
      expect(half.detection).toBe(0);
      expect(half.waste).toBeCloseTo(100 / 562, 12);
      // live: X+A at 462: 150, 300, 450 finishes, 450 <= 462 within and correct; the twin at
      // min(100, 562 - 462) = 100: 150 >= 100 stops it on the budget after writing the default answer.
      // V = 1, eta (1 - 0.5) / (1 - 0.5) = 1, regret 0
      expect(step(half.live)).toEqual([
        [solvable, 462, 450, true, true, "finish"],
        [twin, 100, 150, false, false, "token-budget"],
      ]);
      expect(half.live).toMatchObject({ vE: 1, etaE: 1, regretE: 0 });
      // live U: X+A at 562: 450 (correct); the twin at 562 - 450 = 112: 150 >= 112 stops it, 600 > 562:
      // truncated. V_U 1, eta (1 - 0.5) / (1 - 0.5) = 1
      expect(uStep(half.liveU)).toEqual([
        [solvable, 562, 450, true, false, "finish"],
        [twin, 112, 150, false, true, "token-budget"],
      ]);
      expect(half.liveU).toMatchObject({ vU: 1, etaU: 1, regretU: 0 });
      // re-solve: X+A 160 <= 462 within and correct; the twin writes and finishes in one turn, 80 <= 100
      // within, wrong (no specification): V = 1, eta 1
      expect(step(half.resolve)).toEqual([
        [solvable, 462, 160, true, true, "finish"],
        [twin, 100, 80, true, false, "finish"],
      ]);
      expect(half.resolve).toMatchObject({ vE: 1, etaE: 1, regretE: 0 });

      // compliance: both plans within B (675 <= 675, 562 <= 562); live 2 of 4 units within; re-solve 4 of 4
      const summary = TriageSummary.parse(JSON.parse(ran.stdout));
      expect(summary.phase2).toBe("live");
      expect(summary.compliance).toMatchObject({
        plans: 2,
        compliant: 2,
        share: 1,
        liveRan: 4,
        liveWithin: 2,
        liveURan: 4,
        liveUTruncated: 2,
        resolveRan: 4,
        resolveWithin: 4,
        resolveShare: 1,
      });

      // each live unit is a real trial record in a folder of its plan, made with the configuration's
      // budget set to a_i (its own digest, so phase 0 of a later run never reuses it)
      const liveTrials = lines(path.join(run, "live", "r0-alpha0.75-neutral", "trials.jsonl"));
      expect(
        liveTrials.map((t) => [t.task.id, t.condition, t.index, t.stopReason, t.verdict.status]),
      ).toEqual([
        ["bom-costing", "+A", 0, "finish", "pass"],
        ["mortgage-escrow", "+A", 1, "token-budget", "pass"],
      ]);
      expect(liveTrials[0].agent.digest).not.toBe(phase0Digest);
      // their run id names the folder under runs/ that holds them
      expect(liveTrials[0].runId).toBe("L1/live/r0-alpha0.75-neutral");
      expect(zero.live!.steps[1]!.trial).toBe(`live/r0-alpha0.75-neutral/${liveTrials[1].trialId}`);
      const start = readFileSync(
        path.join(run, "live", "r0-alpha0.75-neutral", liveTrials[1].trajectory),
        "utf8",
      )
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((e) => e.kind === "start");
      expect(start.limits.outputTokenBudget).toBe(175);
      expect(lines(path.join(run, "resolve", "r0.5-alpha0.75-neutral", "trials.jsonl"))).toHaveLength(2);

      // the re-solve states a_i in the system prompt only: the instruction (first user turn) is the
      // task's own, byte for byte, under +A and -A alike; untold runs carry no sentence
      const agentCalls = server.requests.filter(
        (r) => !textOf((r.body.messages as Message[])[0]!.content).includes("## Tasks"),
      );
      const told = agentCalls.filter((r) => BUDGET_SENTENCE.test(textOf(r.body.system)));
      // re-solve turns: r = 0: 2 + 2, r = 0.5: 2 (+A) + 1 (-A) = 7; all other agent turns untold
      expect(told).toHaveLength(7);
      const firstTurns = told.filter((r) => (r.body.messages as Message[]).length === 1);
      expect(
        firstTurns.map((r) => [
          BUDGET_SENTENCE.exec(textOf(r.body.system))![1],
          known.some((k) => textOf(r.body.system).includes(k.artefact)),
        ]),
      ).toEqual([
        ["500", true],
        ["175", true],
        ["462", true],
        ["100", false],
      ]);
      const instructions = known.map((k) => k.instruction);
      for (const r of firstTurns)
        expect(instructions).toContain(textOf((r.body.messages as Message[])[0]!.content));
      // and the system prompt is phase 0's for the same task and condition with only "\n\n" + the
      // sentence added (after kgate's default prompt, before the +A reference listing)
      const firstText = (r: SeenRequest) => textOf((r.body.messages as Message[])[0]!.content);
      const untold = (like: SeenRequest, withSpec: boolean) =>
        textOf(
          agentCalls.find(
            (r) =>
              (r.body.messages as Message[]).length === 1 &&
              firstText(r) === firstText(like) &&
              !BUDGET_SENTENCE.test(textOf(r.body.system)) &&
              known.some((k) => textOf(r.body.system).includes(k.artefact)) === withSpec,
          )!.body.system,
        );
      for (const r of firstTurns) {
        const system = textOf(r.body.system);
        const sentence = BUDGET_SENTENCE.exec(system)![0];
        const withSpec = known.some((k) => system.includes(k.artefact));
        expect(system.replace(`\n\n${sentence}`, "")).toBe(untold(r, withSpec));
      }

      // a crash after the live trials but before the plan record: resume asks the plan again (one
      // call) and finds every live and re-solve trial of it instead of running them again
      const planLines = readFileSync(path.join(run, "plans.jsonl"), "utf8").trim().split("\n");
      writeFileSync(
        path.join(run, "plans.jsonl"),
        `${planLines.filter((l) => !l.includes('"ratio":0,')).join("\n")}\n`,
      );
      const before = server.requests.length;
      const again = await kgateAsync([...base, "--resume", "L1"], env);
      expect(again.code).toBe(0);
      expect(server.requests.length - before).toBe(1);
      const resumed = lines(path.join(run, "plans.jsonl"))
        .map((l) => PlanRecord.parse(l))
        .find((p) => p.ratio === 0)!;
      expect(resumed.live).toEqual(zero.live);
      expect(resumed.resolve).toEqual(zero.resolve);
      expect(resumed.liveU).toEqual(zero.liveU);
      expect(lines(path.join(run, "live-u", "r0-alpha0.75-neutral", "trials.jsonl"))).toHaveLength(2);
      expect(lines(path.join(run, "live", "r0-alpha0.75-neutral", "trials.jsonl"))).toHaveLength(2);

      // the same crash, but the plan asked again changes (the planner now leads with 400): changed
      // limits are new trials, numbered after the earlier ones at the same step
      planner.lead = 400;
      const kept = readFileSync(path.join(run, "plans.jsonl"), "utf8").trim().split("\n");
      writeFileSync(
        path.join(run, "plans.jsonl"),
        `${kept.filter((l) => !l.includes('"ratio":0,')).join("\n")}\n`,
      );
      const before2 = server.requests.length;
      const changed = await kgateAsync([...base, "--resume", "L1"], env);
      expect(changed.code).toBe(0);
      // 1 plan call; live 3 + 2 turns; re-solve 2 + 2; live U none (its limits, B and B - 450, did not
      // change: both trials are found)
      expect(server.requests.length - before2).toBe(10);
      const replanned = lines(path.join(run, "plans.jsonl"))
        .map((l) => PlanRecord.parse(l))
        .find((p) => p.ratio === 0)!;
      // [bom-costing+A 400, mortgage-escrow+A 675 - 400 = 275]
      expect(replanned.plan?.steps).toEqual([
        { id: "bom-costing+A", tokens: 400 },
        { id: "mortgage-escrow+A", tokens: 275 },
      ]);
      // simulated E: 450 > 400 and 450 > 275: V_E = 0, regret (1 - 0) / 1 = 1
      expect(replanned.scores).toMatchObject({ vE: 0, regretE: 1 });
      // live: bom-costing+A at 400: 160, 320 < 400 go on, the third call (finish) ends at 480 past the
      // budget, which the loop checks only before a call: it finished, but 450 output > 400, so not
      // within. mortgage-escrow+A at 275: 160 < 275, 320 >= 275 stops it; 300 > 275. V = 0
      expect(step(replanned.live)).toEqual([
        ["bom-costing+A", 400, 450, false, false, "finish"],
        ["mortgage-escrow+A", 275, 300, false, false, "token-budget"],
      ]);
      // re-solve: both 160 output, within 400 and 275: V = 2
      expect(step(replanned.resolve)).toEqual([
        ["bom-costing+A", 400, 160, true, true, "finish"],
        ["mortgage-escrow+A", 275, 160, true, true, "finish"],
      ]);
      expect(replanned.liveU).toEqual(zero.liveU);
      const ids = lines(path.join(run, "live", "r0-alpha0.75-neutral", "trials.jsonl")).map((t) => t.trialId);
      const [first0, first1] = [liveTrials[0].trialId, liveTrials[1].trialId];
      expect(ids).toEqual([first0, first1, `${first0}.retry1`, `${first1}.retry1`]);
    } finally {
      await server.close();
    }
  });
});
