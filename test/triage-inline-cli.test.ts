import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { INLINE_SYSTEM_PROMPT, loadValidTask, renderInline, scaffoldTask } from "../src/task/index.ts";
import { PlanRecord, TriageSummary } from "../src/triage/index.ts";
import { copyLibraryTask, oracleOutput } from "./support/library-task.ts";
import { type ScriptStep, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const _REPO = projectPaths(path.resolve(import.meta.dirname, ".."));
const IDS = ["bom-costing", "mortgage-escrow"];
/** Output tokens the scripted model spends on a task's reply (under +A and -A alike); half when told a budget. */
const COST: Record<string, number> = { "bom-costing": 200, "mortgage-escrow": 600 };
const SENTENCE = /\n\nYou have a budget of (\d+) tokens for this task\.$/;

interface Known {
  id: string;
  instruction: string;
  artefact: string;
  output: string;
  correct: string;
}

type Message = { role: string; content: string | Array<{ type: string; text?: string }> };
const textOf = (c: unknown): string =>
  typeof c === "string"
    ? c
    : Array.isArray(c)
      ? (c as Array<{ text?: string }>).map((b) => b.text ?? "").join("")
      : "";
const firstText = (r: SeenRequest) => textOf((r.body.messages as Message[])[0]!.content);
const isPlanCall = (r: SeenRequest) => firstText(r).includes("## Tasks");

/**
 * The scripted planner: units whose file list names their artefact first (in prompt order), then the
 * others; the first gets B - 100 x (n - 1), every other 100.
 */
function planReply(prompt: string, known: Known[]): string {
  const budget = Number(/You have (\d+) output tokens/.exec(prompt)![1]);
  const blocks = prompt.split(/^### /m).slice(1);
  const ids = blocks.map((b) => /^(\S+) \(value 1\)/.exec(b)![1]!);
  const spec = ids.filter((_, i) => known.some((k) => blocks[i]!.includes(`, ${k.artefact}`)));
  const order = [...spec, ...ids.filter((id) => !spec.includes(id))];
  const plan = order.map((id, i) => ({ id, tokens: i === 0 ? budget - 100 * (order.length - 1) : 100 }));
  return JSON.stringify({ plan });
}

/**
 * The scripted inline answer: under +A (the artefact's block is in the prompt) the right output, under
 * -A the header alone (wrong), in a block labelled with the output path; COST output tokens, half when
 * the prompt ends with the budget sentence; a max_tokens below that cuts the reply (the block is never
 * closed) and reports max_tokens output tokens.
 */
function inlineReply(request: SeenRequest, known: Known[]): ScriptStep {
  const text = firstText(request);
  const task = known.find((k) => text.startsWith(k.instruction))!;
  const withSpec = text.includes(`\`\`\`${task.artefact}\n`);
  const content = withSpec ? task.correct : `${task.correct.split("\n")[0]}\n`;
  const output = SENTENCE.test(text) ? COST[task.id]! / 2 : COST[task.id]!;
  const limit = Number(request.body.max_tokens);
  const reply = `Here it is.\n\n\`\`\`${task.output}\n${content}\`\`\`\n`;
  if (limit < output) return { text: reply.slice(0, 30), usage: { output: limit }, truncated: true };
  return { text: reply, usage: { input: 50, output } };
}

describe("kgate triage on inline task units", () => {
  it("answers each unit in the task's inline form, verifies it, and plans, runs live and re-solves", {
    timeout: 300_000,
  }, async () => {
    const paths = tempProject();
    for (const id of IDS) copyLibraryTask(paths, id);
    const known: Known[] = IDS.map((id) => {
      const task = loadValidTask(paths, id);
      return {
        id,
        instruction: task.instruction.toString("utf8"),
        artefact: task.spec.artefact.path,
        output: task.spec.outputs[0]!.path,
        correct: oracleOutput(task),
      };
    });
    const server = await startModelServer(
      (request) =>
        isPlanCall(request)
          ? { text: planReply(firstText(request), known), usage: { output: 80 } }
          : inlineReply(request, known),
      { requireKey: "sk-inline" },
    );
    try {
      writeJson(paths.config, {
        agents: {
          frontier: {
            harness: "builtin",
            provider: "anthropic",
            model: "frontier-scripted",
            baseUrl: server.anthropicUrl,
            apiKeyEnv: "KGATE_TRIAGE_INLINE_KEY",
            retry: { maxRetries: 0 },
          },
        },
      });
      const env = { KGATE_TRIAGE_INLINE_KEY: "sk-inline" };
      const args = [
        "--root",
        paths.root,
        "triage",
        "inline:bom-costing,mortgage-escrow",
        "--agent",
        "frontier",
      ];
      // one unit and plan at a time: the calls below are asserted in the order the protocol makes them
      const options = [
        ...["--alpha", "0.75", "--framing", "neutral", "--inject", "0,0.5", "--live", "--resolve"],
        ...["--concurrency", "1"],
      ];
      const ran = await kgateAsync([...args, ...options, "--run-id", "I1", "--json"], env);
      expect(ran.stderr).not.toContain("error");
      expect(ran.code).toBe(0);
      const run = path.join(paths.runs, "I1");

      // phase 0: one call per unit, the inline form as renderInline gives it (system prompt and one
      // user message), max_tokens = --unit-cap (16,384); +A right, -A wrong (no specification)
      const phase0Calls = server.requests.slice(0, 4);
      const bom = loadValidTask(paths, "bom-costing");
      expect(textOf(phase0Calls[0]!.body.system)).toBe(INLINE_SYSTEM_PROMPT);
      expect(firstText(phase0Calls[0]!)).toBe(renderInline(bom, "+A").text);
      expect(firstText(phase0Calls[1]!)).toBe(renderInline(bom, "-A").text);
      expect(phase0Calls.map((r) => r.body.max_tokens)).toEqual([16_384, 16_384, 16_384, 16_384]);
      const phase0 = readFileSync(path.join(run, "phase0.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(phase0.map((r) => [r.id, r.cost, r.correct, r.answer, r.unit.kind])).toEqual([
        ["bom-costing+A", 200, true, "pass", "inline"],
        ["bom-costing-A", 200, false, "fail", "inline"],
        ["mortgage-escrow+A", 600, true, "pass", "inline"],
        ["mortgage-escrow-A", 600, false, "fail", "inline"],
      ]);

      const plans = readFileSync(path.join(run, "plans.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => PlanRecord.parse(JSON.parse(l)));
      const at = (ratio: number) => plans.find((p) => p.ratio === ratio)!;
      const eSteps = (s: PlanRecord["live"]) =>
        s!.steps.map((st) => [st.id, st.limit, st.cost, st.within, st.correct]);
      const uSteps = (s: PlanRecord["liveU"]) =>
        s!.steps.map((st) => [st.id, st.limit, st.cost, st.correct, st.truncated]);

      // r = 0: bom-costing+A 200, mortgage-escrow+A 600; B = floor(0.75 * 800) = 600; plan [bom 500, mort 100].
      // oracle: 200 + 600 = 800 > 600, so 1; random: either order scores its first unit, the second
      // crosses 600: 1. eta undefined, regret 0 where V = 1.
      const zero = at(0);
      expect(zero.budget).toBe(600);
      expect(zero.plan?.steps).toEqual([
        { id: "bom-costing+A", tokens: 500 },
        { id: "mortgage-escrow+A", tokens: 100 },
      ]);
      // simulated U: 200 (right), 800 > 600 truncated -> 1; E: 200 <= 500 right, 600 > 100 -> 1
      expect(zero.scores).toMatchObject({ vOracle: 1, vRandom: 1, vU: 1, vE: 1, etaU: null, etaE: null });
      // live E, max_tokens = a_i: bom 200 within 500 and right; mort cut at 100: not within. V 1
      expect(eSteps(zero.live)).toEqual([
        ["bom-costing+A", 500, 200, true, true],
        ["mortgage-escrow+A", 100, 100, false, false],
      ]);
      expect(zero.live).toMatchObject({ vE: 1, regretE: 0 });
      // live U, max_tokens = what is left of B: bom at 600 (200, total 200, right); mort at 400, cut there:
      // the total is 600, not past B, but uncut it would have been (600 + 200 > 600): truncated. V 1
      expect(uSteps(zero.liveU)).toEqual([
        ["bom-costing+A", 600, 200, true, false],
        ["mortgage-escrow+A", 400, 400, false, true],
      ]);
      expect(zero.liveU).toMatchObject({ vU: 1, regretU: 0 });
      // re-solve, told a_i (half the tokens: bom 100, mort 300): bom within 500 and right; mort 300 > 100 cut
      expect(eSteps(zero.resolve)).toEqual([
        ["bom-costing+A", 500, 100, true, true],
        ["mortgage-escrow+A", 100, 100, false, false],
      ]);

      // r = 0.5 (seed 0): bom-costing+A is replaced by its -A twin: [bom-costing-A 200, mortgage-escrow+A 600],
      // B = floor(0.75 * 800) = 600; plan [mort+A 500, bom-A 100] (the unit listing its artefact first).
      // oracle: mort 600 <= 600: 1. random: mort first 1 (then 800 > 600); bom-A first 200 (wrong), then
      // 800 > 600: 0. V_random 0.5.
      const half = at(0.5);
      expect(half.units).toEqual(["bom-costing-A", "mortgage-escrow+A"]);
      expect(half.plan?.steps).toEqual([
        { id: "mortgage-escrow+A", tokens: 500 },
        { id: "bom-costing-A", tokens: 100 },
      ]);
      // simulated U: 600 right, then 800 > 600: 1, eta (1 - 0.5) / (1 - 0.5) = 1; E: 600 > 500, bom-A
      // wrong: 0, eta (0 - 0.5) / 0.5 = -1, regret 1. D = 0 (the twin is planned), W = 100 / 600
      expect(half.scores).toMatchObject({
        vOracle: 1,
        vRandom: 0.5,
        vU: 1,
        etaU: 1,
        vE: 0,
        etaE: -1,
        regretE: 1,
      });
      expect(half.detection).toBe(0);
      expect(half.waste).toBeCloseTo(100 / 600, 12);
      // live E: mort cut at 500 (not within); bom-A 200 > 100 cut. V 0
      expect(eSteps(half.live)).toEqual([
        ["mortgage-escrow+A", 500, 500, false, false],
        ["bom-costing-A", 100, 100, false, false],
      ]);
      expect(half.live).toMatchObject({ vE: 0, etaE: -1, regretE: 1 });
      // live U: mort at 600 takes 600 (total 600 = B, right); nothing is left, so bom-A is truncated
      // without a call. V 1, eta 1
      expect(uSteps(half.liveU)).toEqual([
        ["mortgage-escrow+A", 600, 600, true, false],
        ["bom-costing-A", 0, 0, false, true],
      ]);
      expect(half.liveU!.steps[1]!.stopReason).toBe("not run: the budget was spent");
      expect(half.liveU).toMatchObject({ vU: 1, etaU: 1, regretU: 0 });
      // re-solve (mort 300, bom-A 100): mort within 500 and right; bom-A 100 <= 100 within, wrong. V 1
      expect(eSteps(half.resolve)).toEqual([
        ["mortgage-escrow+A", 500, 300, true, true],
        ["bom-costing-A", 100, 100, true, false],
      ]);
      expect(half.resolve).toMatchObject({ vE: 1, etaE: 1, regretE: 0 });

      // the calls after phase 0, by max_tokens: r = 0 plan, E [500, 100], U [600, 400], re-solve
      // [500, 100]; r = 0.5 plan, E [500, 100], U [600] (bom-A not called), re-solve [500, 100]
      const later = server.requests.slice(4).filter((r) => !isPlanCall(r));
      expect(later.map((r) => r.body.max_tokens)).toEqual([
        500, 100, 600, 400, 500, 100, 500, 100, 600, 500, 100,
      ]);
      // the re-solve's prompt: the inline form byte for byte (the instruction inside it untouched), a
      // blank line, the sentence
      const told = later.filter((r) => SENTENCE.test(firstText(r)));
      expect(told).toHaveLength(4);
      expect(firstText(told[0]!)).toBe(
        `${renderInline(bom, "+A").text}\nYou have a budget of 500 tokens for this task.`,
      );

      const summary = TriageSummary.parse(JSON.parse(ran.stdout));
      expect(summary.pool.name).toBe("inline:bom-costing,mortgage-escrow");
      expect(summary.compliance).toMatchObject({
        liveRan: 4,
        liveWithin: 1,
        liveURan: 3,
        liveUTruncated: 2,
        resolveRan: 4,
        resolveWithin: 3,
      });

      // a resume of the finished run asks nothing (the pool is found again by its inline: name)
      const before = server.requests.length;
      const again = await kgateAsync([...args, "--resume", "I1"], env);
      expect(again.code).toBe(0);
      expect(server.requests.length).toBe(before);
    } finally {
      await server.close();
    }
  });

  it("refuses a task the inline form cannot carry before any call, naming the task and the file (exit 2)", async () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "gated", gate: "convention" });
    const env = path.join(paths.tasks, "gated", "environment");
    mkdirSync(env, { recursive: true });
    writeFileSync(path.join(env, "blob.bin"), Buffer.from([0xff, 0xfe, 0x00, 0x80]));
    writeJson(paths.config, {
      agents: {
        frontier: {
          harness: "builtin",
          provider: "anthropic",
          model: "frontier-scripted",
          baseUrl: "http://127.0.0.1:9",
          apiKeyEnv: "KGATE_TRIAGE_INLINE_KEY",
        },
      },
    });
    const ran = await kgateAsync(
      ["--root", paths.root, "triage", "inline:gated", "--agent", "frontier", "--run-id", "bad"],
      { KGATE_TRIAGE_INLINE_KEY: "sk-inline" },
    );
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('task "gated": environment/blob.bin is not UTF-8 text');
    expect(existsSync(path.join(paths.runs, "bad"))).toBe(false);
  });
});
