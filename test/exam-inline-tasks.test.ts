// `kgate exam --inline-tasks` end to end in process: two scaffolded tasks rendered inline as the
// questions of one reasoning turn, through the real Anthropic SDK client to the loopback model server
// (scripted replies, not a real model); outputs from `task-k/<path>` blocks, each task's own verifier.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../src/commands/context.ts";
import { run as exam } from "../src/commands/exam.ts";
import { ExamRecord, ReferenceLine } from "../src/exam/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";

const KEY_ENV = "KGATE_EXAM_INLINE_KEY";
// The scaffolded task: input.csv has widget,3 and gadget,5; the artefact's markup is 12%.
const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";
const WRONG = "item,value\nwidget,3.00\ngadget,5.00\n";
// pieces: "I start ." 3; "Question 1 : widget and gadget at twelve percent ." 10; "Q2 : same again ." 5
const TRACE = "I start. Question 1: widget and gadget at twelve percent. Q2: same again.";

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function userTexts(request: SeenRequest): string[] {
  const messages = request.body.messages as Array<{ role: string; content: unknown }>;
  return messages
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : (m.content as Array<{ text?: string }>).map((b) => b.text ?? "").join(""),
    );
}

/** Reasoning: TRACE, 36 output tokens reported. Extraction: task 1 right, task 2 without the markup. */
function inlineTaker(request: SeenRequest) {
  if (userTexts(request).length === 1) return { text: TRACE, usage: { input: 900, output: 36 } };
  const block = (k: number, body: string) => `\`\`\`task-${k}/output/result.csv\n${body}\`\`\``;
  return { text: `${block(1, CORRECT)}\n\n${block(2, WRONG)}\n`, usage: { input: 1000, output: 40 } };
}

function capture(paths: ProjectPaths): CommandContext & { err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const e: Buffer[] = [];
  stdout.resume();
  stderr.on("data", (c: Buffer) => e.push(c));
  return { paths, stdout, stderr, err: () => Buffer.concat(e).toString() };
}

const OPTIONS = {
  agent: "examiner",
  n: "2",
  exams: "1",
  scheme: "fixed",
  order: "random",
  prompt: "baseline",
  budget: "500",
  seed: "2",
  trials: "3",
  runId: "r1",
  concurrency: 2,
};

describe("kgate exam --inline-tasks", () => {
  it("asks one capped reasoning turn and one extraction turn, verifies each task, attributes by marker", async () => {
    server = await startModelServer(inlineTaker);
    const paths = tempProject();
    for (const id of ["alpha", "beta"]) scaffoldTask(paths, { id, gate: "convention" });
    writeJson(paths.config, {
      agents: {
        examiner: {
          harness: "builtin",
          provider: "anthropic",
          model: "scripted-examiner",
          baseUrl: server.anthropicUrl,
          apiKeyEnv: KEY_ENV,
          retry: { maxRetries: 0 },
        },
      },
    });
    process.env[KEY_ENV] = "sk-test";
    const ctx = capture(paths);
    try {
      expect(await exam(ctx, undefined, { ...OPTIONS, inlineTasks: "alpha,beta", condition: "+A" })).toBe(0);
    } finally {
      delete process.env[KEY_ENV];
    }
    expect(server.requests.length).toBe(2);
    const [reasoning, extraction] = server.requests;
    expect(reasoning!.body.max_tokens).toBe(500); // capped at B
    // 64 + one output of maxBytes 1 MiB granted 4096 tokens, per task
    expect(extraction!.body.max_tokens).toBe(64 + 2 * 4096);
    const exam1 = userTexts(reasoning!)[0]!;
    expect(exam1).toMatch(/^Question 1 \(10 points\): /m);
    expect(exam1).toMatch(/^Question 2 \(10 points\): /m);
    // the data inline: each task's input.csv in a fenced block labelled with its path
    expect(exam1.match(/^```input\.csv$/gm)?.length).toBe(2);
    const ask = userTexts(extraction!)[1]!;
    expect(ask).toContain("```task-1/output/result.csv");
    expect(ask).toContain("```task-2/output/result.csv");

    const [r] = readFileSync(path.join(paths.runs, "r1", "exams.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => ExamRecord.parse(JSON.parse(line)));
    expect(r!.kind).toBe("inline-tasks");
    expect(r!.agent.harness).toBe("exam-inline-tasks");
    expect(r!.units.map((u) => u.correct)).toEqual([true, false]);
    expect(r!.score).toBeCloseTo(10 / 20, 12);
    // 36 reported tokens over 18 pieces: 2 a piece; Q1 10 pieces, Q2 5, preamble 3
    expect(r!.units.map((u) => u.tokens)).toEqual([20, 10]);
    expect(r!.unattributedTokens).toBe(6);
    expect(r!.usage.outputTokens).toBe(36); // the extraction turn is kept apart
    expect(r!.extractionUsage?.outputTokens).toBe(40);
    expect(ctx.err()).toMatch(/\[1\/1\] n2-e0-fixed-random-baseline: score 0\.500/);
  });

  it("refuses --inline-tasks together with an item pool or --tasks", async () => {
    const paths = tempProject();
    await expect(exam(capture(paths), "arith", { ...OPTIONS, inlineTasks: "all" })).rejects.toThrow(
      /one of an item pool, --tasks and --inline-tasks/,
    );
    await expect(
      exam(capture(paths), undefined, { ...OPTIONS, tasks: "a", inlineTasks: "b" }),
    ).rejects.toThrow(/not several/);
  });
});

describe("kgate exam --inline-tasks --make-reference", () => {
  /**
   * Each task alone: alpha's reasoning costs 30 output tokens and its output is right; beta's costs 50
   * and its extraction alternates right, wrong, right, ... (in the order the extraction calls arrive).
   */
  function aloneTaker() {
    let betaExtractions = 0;
    return (request: SeenRequest) => {
      const texts = userTexts(request);
      const alpha = texts[0]!.includes("marker: alpha");
      if (texts.length === 1)
        return { text: "Question 1: working.", usage: { input: 500, output: alpha ? 30 : 50 } };
      const right = alpha || ++betaExtractions % 2 === 1;
      return {
        text: `\`\`\`task-1/output/result.csv\n${right ? CORRECT : WRONG}\`\`\`\n`,
        usage: { input: 600, output: 20 },
      };
    };
  }

  it("runs each inline task alone k times and writes accuracy = passes / k, the reasoning tokens, provenance", async () => {
    server = await startModelServer(aloneTaker());
    const paths = tempProject();
    for (const id of ["alpha", "beta"]) {
      scaffoldTask(paths, { id, gate: "convention" });
      appendFileSync(path.join(paths.tasks, id, "instruction.md"), `\nmarker: ${id}\n`);
    }
    writeJson(paths.config, {
      agents: {
        examiner: {
          harness: "builtin",
          provider: "anthropic",
          model: "scripted-examiner",
          baseUrl: server.anthropicUrl,
          apiKeyEnv: KEY_ENV,
          retry: { maxRetries: 0 },
        },
      },
    });
    process.env[KEY_ENV] = "sk-test";
    try {
      const options = {
        ...OPTIONS,
        inlineTasks: "alpha,beta",
        condition: "+A",
        budget: "4000",
        trials: "3",
        concurrency: 3,
        makeReference: "ref/inline.jsonl",
      };
      expect(await exam(capture(paths), undefined, options)).toBe(0);
      // 2 tasks x 3 trials x 2 turns
      expect(server.requests.length).toBe(12);
      const lines = readFileSync(path.join(paths.root, "ref", "inline.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => ReferenceLine.parse(JSON.parse(l)));
      const byId = new Map(lines.map((l) => [l.id, l]));
      // alpha: 3 of 3, 30 tokens each; beta: extractions 1 and 3 right of 3, 50 tokens each (extraction apart)
      expect(byId.get("alpha")).toMatchObject({ accuracy: 1, tokens: 30 });
      expect(byId.get("beta")).toMatchObject({ accuracy: 2 / 3, tokens: 50 });
      expect(byId.get("alpha")!.provenance).toMatchObject({
        kind: "inline-tasks",
        condition: "+A",
        budget: 4000,
        trials: 3,
        runId: null,
      });
      // each trial alone: one question of 10 points, its reasoning turn capped at B
      const reasoning = server.requests.filter((r) => userTexts(r).length === 1);
      expect(reasoning.length).toBe(6);
      for (const r of reasoning) {
        expect(r.body.max_tokens).toBe(4000);
        expect(userTexts(r)[0]!.match(/^Question \d+ \(\d+ points\)/gm)).toEqual(["Question 1 (10 points)"]);
      }
    } finally {
      delete process.env[KEY_ENV];
    }
  });
});
