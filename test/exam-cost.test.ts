// `kgate exam --max-cost` and `--estimate` on an item pool, in process through the command's run
// function, the real Anthropic SDK client against the loopback model server (a scripted exam-taker,
// not a real model). The ceiling reserves an exam's worst case before it starts and settles it at the
// recorded cost; a refused exam has no record and no result; a resume with more finishes the run.
// The estimate prices each exam size from the earlier records of the same configuration and pool,
// else from the bound, and runs nothing.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../src/commands/context.ts";
import { run as exam } from "../src/commands/exam.ts";
import type { ProjectPaths } from "../src/project.ts";
import { inOrderExamTaker } from "./support/exam-model.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";

const KEY_ENV = "KGATE_EXAM_COST_TEST_KEY";
let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  delete process.env[KEY_ENV];
});

/** items/arith.jsonl (8 sums) and one priced agent: $1 per million tokens sent, $1000 per million generated. */
function project(url: string): ProjectPaths {
  const p = tempProject();
  mkdirSync(path.join(p.root, "items"));
  const lines = Array.from({ length: 8 }, (_, i) =>
    JSON.stringify({
      id: `sum-${i + 1}`,
      prompt: `What is ${i + 1} + ${10 * (i + 1)}?`,
      answer: 11 * (i + 1),
      checker: "number",
    }),
  );
  writeFileSync(path.join(p.root, "items", "arith.jsonl"), `${lines.join("\n")}\n`);
  writeJson(p.config, {
    agents: {
      examiner: {
        harness: "builtin",
        provider: "anthropic",
        model: "scripted-examiner",
        baseUrl: url,
        apiKeyEnv: KEY_ENV,
        pricing: { inputPerMTok: 1, outputPerMTok: 1000 },
      },
    },
  });
  return p;
}

function capture(paths: ProjectPaths): CommandContext & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = "";
  let e = "";
  stdout.on("data", (c: Buffer) => (o += c.toString()));
  stderr.on("data", (c: Buffer) => (e += c.toString()));
  return { paths, stdout, stderr, out: () => o, err: () => e };
}

const OPTIONS = {
  agent: "examiner",
  n: "3",
  exams: "2",
  scheme: "fixed",
  order: "random",
  prompt: "baseline",
  seed: "2",
  trials: "3",
  budget: "400",
  concurrency: 1,
  json: true,
};

/** The text of a request's messages, in order (user and assistant). */
function texts(r: SeenRequest): string[] {
  const messages = r.body.messages as Array<{ content: string | Array<{ text?: string }> }>;
  return messages.map((m) =>
    typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join(""),
  );
}
const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("kgate exam --max-cost", () => {
  it("refuses the exam whose worst case would cross the ceiling, states the budget, and a resume with more finishes", async () => {
    server = await startModelServer(inOrderExamTaker());
    const paths = project(server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    // One exam of 3 questions as the scripted taker reports it: reasoning 100 in / 100 out (2 x 50
    // pieces), extraction 200 in / 15 out (5 per question). At $1 and $1000 per million:
    // (100 + 200) x 1e-6 + (100 + 15) x 1e-3 = 0.0003 + 0.115 = $0.1153.
    const examCost = 0.1153;
    // The worst case generates B = 400 and the extraction cap 64 + 48 x 3 = 208: 608 x 1e-3 = $0.608,
    // plus what it sends (below) at 1e-6 a token: over $0.608, under $0.65 for a prompt under 40 kB.
    // Exam 1: 0 + 0 + worst <= 0.65, starts; exam 2: 0.1153 + worst > 0.65, refused.
    const first = capture(paths);
    expect(await exam(first, "arith", { ...OPTIONS, runId: "r1", maxCost: "0.65" })).toBe(1);
    expect(server.requests.length).toBe(2); // one exam: reasoning and extraction
    const summary = JSON.parse(first.out());
    expect(summary.finished).toBe(1);
    expect(summary.planned).toBe(2);
    expect(summary.budget.ceilingUsd).toBe(0.65);
    expect(summary.budget.spentUsd).toBeCloseTo(examCost, 10);
    expect(summary.budget.reservedUsd).toBe(0);
    expect(summary.budget.refused).toBe(1);
    const lines = readFileSync(path.join(paths.runs, "r1", "exams.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(lines.length).toBe(1); // the refused exam has no record, so no result
    // The reason names the worst case: tokens sent are bounded by UTF-8 bytes + 16 per message; the
    // reasoning turn sends the exam (e bytes), the extraction turn the exam, the trace as B = 400 and
    // the extraction prompt (x bytes): (e + 16) + (e + 16) + (400 + 16) + (x + 16).
    const [exam1, , extraction] = texts(server.requests[1]!);
    const sent = 2 * (bytes(exam1!) + 16) + 416 + bytes(extraction!) + 16;
    const worst = 0.608 + sent * 1e-6;
    const shown = (Math.round(worst * 10_000) / 10_000).toString();
    expect(first.err()).toContain(`this exam's worst case $${shown} would cross it`);
    const report = readFileSync(path.join(paths.runs, "r1", "report.txt"), "utf8");
    expect(report).toContain("cost ceiling $0.65: spent $0.1153, reserved $0; 1 exam(s) not started");
    expect(report).toContain("kgate exam --resume r1 --max-cost <more>");

    // Resume with $2: spent 0.1153 from the first session + 0.1153 = $0.2306, every exam run.
    const second = capture(paths);
    expect(await exam(second, undefined, { ...OPTIONS, resume: "r1", maxCost: "2" })).toBe(0);
    const resumed = JSON.parse(second.out());
    expect(resumed.finished).toBe(2);
    expect(resumed.budget.spentUsd).toBeCloseTo(2 * examCost, 10);
    expect(resumed.budget.refused).toBe(0);
    expect(server.requests.length).toBe(4);
  });

  it("refuses --max-cost for an agent configuration without prices", async () => {
    server = await startModelServer(inOrderExamTaker());
    const paths = project(server.anthropicUrl);
    const config = JSON.parse(readFileSync(paths.config, "utf8"));
    delete config.agents.examiner.pricing;
    writeJson(paths.config, config);
    process.env[KEY_ENV] = "sk-test";
    await expect(exam(capture(paths), "arith", { ...OPTIONS, runId: "r2", maxCost: "1" })).rejects.toThrow(
      /--max-cost needs prices: agent configuration examiner has no "pricing"/,
    );
    expect(server.requests.length).toBe(0);
  });
});

describe("kgate exam --estimate", () => {
  it("prices sizes with earlier records from them, the others at their bound, and runs nothing", async () => {
    server = await startModelServer(inOrderExamTaker());
    const paths = project(server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    expect(await exam(capture(paths), "arith", { ...OPTIONS, runId: "old" })).toBe(0);
    const calls = server.requests.length;
    delete process.env[KEY_ENV]; // an estimate needs no key: it calls no model
    const ctx = capture(paths);
    expect(await exam(ctx, "arith", { ...OPTIONS, n: "3,4", runId: "new", estimate: true })).toBe(0);
    expect(server.requests.length).toBe(calls);
    expect(readdirSync(paths.runs)).toEqual(["old"]); // no run directory
    const e = JSON.parse(ctx.out());
    const [n3, n4] = e.groups;
    // N = 3: the two exams of run "old" at $0.1153 each (see above): 2 x 0.1153 = $0.2306, low = high.
    expect(n3).toMatchObject({ group: "N=3 baseline", units: 2, source: "records", records: 2 });
    expect(n3.costUsd.expected).toBeCloseTo(0.2306, 10);
    expect(n3.costUsd.low).toBeCloseTo(0.2306, 10);
    expect(n3.costUsd.high).toBeCloseTo(0.2306, 10);
    // tokens per exam: 100 + 200 in, 100 + 15 out
    expect(n3.tokens).toEqual({ input: 300, output: 115, cacheRead: 0, cacheWrite: 0 });
    // N = 4: no earlier record, the bound: B 400 + extraction 64 + 48 x 4 = 256 generated = 656 per exam,
    // 2 exams: 1312 x 1e-3 = $1.312 plus what they send (at 1e-6 a token: well under a cent).
    expect(n4).toMatchObject({ group: "N=4 baseline", units: 2, source: "caps", records: 0 });
    expect(n4.tokens.output).toBe(656);
    expect(n4.costUsd.high).toBeCloseTo(1.312 + 2 * n4.tokens.input * 1e-6, 10);
    expect(n4.costUsd.high - 1.312).toBeLessThan(0.01);
    expect(e.totalUsd.expected).toBeCloseTo(0.2306 + n4.costUsd.expected, 10);
    expect(e.uncertain).toBe(1);
    const text = capture(paths);
    expect(await exam(text, "arith", { ...OPTIONS, n: "3,4", json: false, estimate: true })).toBe(0);
    expect(text.out()).toContain(
      "N=3 baseline: 2 exam(s), 300 in / 115 out / 0 cache tokens per exam, $0.2306",
    );
    expect(text.out()).toContain("from 2 earlier record(s)");
    expect(text.out()).toContain("upper bound from the token caps (no earlier record)");
  });
});
