// `kgate exam` on an item pool end to end: the real bin and the real SDK clients against the loopback
// model server, whose scripted exam-taker works the questions in presentation order (scripted replies,
// not a real model). Records one per exam, --json, the report files, resume after a failure, bad input.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../src/commands/context.ts";
import { run as exam } from "../src/commands/exam.ts";
import { ExamRecord } from "../src/exam/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { inOrderExamTaker, questionsOf } from "./support/exam-model.ts";
import {
  type ModelServer,
  type ScriptStep,
  type SeenRequest,
  startModelServer,
} from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const BIN_TIMEOUT = 120_000;
const KEY_ENV = "KGATE_EXAM_TEST_KEY";

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** A project with items/arith.jsonl (8 sums, difficulty 1..8) and one agent on the loopback server. */
function examProject(provider: "anthropic" | "openai-compatible", url: string): ProjectPaths {
  const project = tempProject();
  mkdirSync(path.join(project.root, "items"));
  const lines = Array.from({ length: 8 }, (_, i) =>
    JSON.stringify({
      id: `sum-${i + 1}`,
      prompt: `What is ${i + 1} + ${10 * (i + 1)}?`,
      answer: 11 * (i + 1),
      checker: "number",
      difficulty: i + 1,
    }),
  );
  writeFileSync(path.join(project.root, "items", "arith.jsonl"), `${lines.join("\n")}\n`);
  writeJson(project.config, {
    agents: {
      examiner: {
        harness: "builtin",
        provider,
        model: "scripted-examiner",
        baseUrl: url,
        apiKeyEnv: KEY_ENV,
      },
    },
  });
  return project;
}

function records(project: ProjectPaths, runId: string): ExamRecord[] {
  const text = readFileSync(path.join(project.runs, runId, "exams.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => ExamRecord.parse(JSON.parse(line)));
}

function capture(paths: ProjectPaths): CommandContext & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  stdout.on("data", (c: Buffer) => o.push(c));
  stderr.on("data", (c: Buffer) => e.push(c));
  return {
    paths,
    stdout,
    stderr,
    out: () => Buffer.concat(o).toString(),
    err: () => Buffer.concat(e).toString(),
  };
}

const DEFAULTS = {
  n: "3",
  exams: "2",
  scheme: "fixed",
  order: "random",
  prompt: "baseline",
  seed: "2",
  trials: "3",
  concurrency: 2,
};

describe("kgate exam (items, bin)", () => {
  it("runs two-phase exams, attributes effort per question and reports correlations", {
    timeout: BIN_TIMEOUT,
  }, async () => {
    server = await startModelServer(inOrderExamTaker());
    const project = examProject("anthropic", server.anthropicUrl);
    const result = await kgateAsync(
      [
        "--root",
        project.root,
        "exam",
        "arith",
        "--agent",
        "examiner",
        "--n",
        "3",
        "--exams",
        "2",
        "--budget",
        "400",
        "--run-id",
        "r1",
        "--concurrency",
        "1", // one exam at a time: the requests below are read in order
        "--json",
      ],
      { [KEY_ENV]: "sk-test" },
    );
    expect(result.stderr).toMatch(/\[2\/2\] n3-e1-fixed-random-baseline: score 0\.667/);
    expect(result.code).toBe(0);
    // 2 exams x (reasoning + extraction)
    expect(server.requests.length).toBe(4);
    expect(server.requests[0]!.body.max_tokens).toBe(400); // the reasoning turn is capped at B
    expect(server.requests[1]!.body.max_tokens).toBe(64 + 48 * 3); // the extraction turn is not
    const rs = records(project, "r1");
    expect(rs.length).toBe(2);
    for (const r of rs) {
      expect(r.agent).toEqual(expect.objectContaining({ name: "examiner", model: "scripted-examiner" }));
      expect(r.kgateVersion).toMatch(/^\d+\.\d+\.\d+/);
      expect(r.pool.digest).toMatch(/^[0-9a-f]{64}$/);
      // trace pieces: preamble "I go in order." 5; question k: 3 + 3 (3 - k + 1) + 6 = 18, 15, 12;
      // the server reports 2 x 50 output tokens, so 2 tokens a piece
      expect(r.units.map((u) => u.tokens)).toEqual([36, 30, 24]);
      expect(r.unattributedTokens).toBe(10);
      // every unit is worth 10; the last one presented is answered wrong: 20 / 30
      expect(r.score).toBeCloseTo(2 / 3, 12);
      expect(r.units.map((u) => u.correct)).toEqual([true, true, false]);
      expect(r.coverage).toBe(1); // every t_i >= tau = 16
      expect(r.stats.effortPosition).toBeCloseTo(-1, 12);
      expect(r.stats.orderPosition).toBeCloseTo(1, 12);
      expect(r.stats.effortValue).toBeNull(); // fixed points do not vary
      expect(r.extractionUsage!.outputTokens).toBe(15);
      expect(r.usage.outputTokens).toBe(100);
    }
    const summary = JSON.parse(result.stdout);
    expect(summary.finished).toBe(2);
    expect(summary.groups[0].stats.orderPosition).toEqual({ mean: 1, low: 1, high: 1, n: 2 });
    // share of attributed tokens by position: 36/90, 30/90, 24/90
    expect(summary.effortByPosition[0].share[0]).toBeCloseTo(0.4, 12);
    const svg = readFileSync(path.join(project.runs, "r1", "effort-by-position.svg"), "utf8");
    expect(svg).toMatch(/<polyline/);
    expect(readFileSync(path.join(project.runs, "r1", "report.txt"), "utf8")).toMatch(
      /N=3 fixed\/random\/baseline \(2 exams\)/,
    );
  });
});

describe("kgate exam (items, in process)", () => {
  it("scores random points as sum v_i correct_i / sum v_i through the OpenAI client", async () => {
    server = await startModelServer(inOrderExamTaker());
    const project = examProject("openai-compatible", server.openaiUrl);
    process.env[KEY_ENV] = "sk-test";
    const ctx = capture(project);
    try {
      expect(
        await exam(ctx, "arith", {
          ...DEFAULTS,
          n: "4",
          scheme: "random",
          agent: "examiner",
          budget: "500",
          runId: "r2",
        }),
      ).toBe(0);
    } finally {
      delete process.env[KEY_ENV];
    }
    expect(server.requests[0]!.api).toBe("openai-chat");
    for (const r of records(project, "r2")) {
      const points = r.units.map((u) => u.points);
      const total = points.reduce((s, p) => s + p, 0);
      // all but the last presented are right
      expect(r.score).toBeCloseTo((total - points[3]!) / total, 12);
      expect(points.every((p) => Number.isInteger(p) && p >= 1 && p <= 15)).toBe(true);
    }
    expect(ctx.out()).toMatch(/N=4 random\/random\/baseline \(2 exams\): score/);
  });

  it("refuses to resume a run whose agent configuration changed, naming the field", async () => {
    // the third request (exam 2's reasoning turn, one exam at a time) is refused
    const taker = inOrderExamTaker();
    server = await startModelServer((req, i) =>
      i === 2 ? { status: 400, message: "scripted refusal" } : taker(req),
    );
    const project = examProject("anthropic", server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    try {
      const first = capture(project);
      expect(
        await exam(first, "arith", {
          ...DEFAULTS,
          agent: "examiner",
          budget: "400",
          runId: "r3",
          concurrency: 1,
        }),
      ).toBe(1);
      expect(first.err()).toMatch(/n3-e1-fixed-random-baseline: error \(provider-rejected\)/);
      expect(records(project, "r3").map((r) => r.error?.kind ?? null)).toEqual([null, "provider-rejected"]);
      await server.close();
      server = await startModelServer(inOrderExamTaker());
      writeJson(project.config, {
        agents: {
          examiner: {
            harness: "builtin",
            provider: "anthropic",
            model: "scripted-examiner",
            baseUrl: server.anthropicUrl,
            apiKeyEnv: KEY_ENV,
          },
        },
      });
      // another baseUrl is another configuration digest
      await expect(exam(capture(project), undefined, { ...DEFAULTS, resume: "r3" })).rejects.toThrow(
        /cannot resume r3: it was started with other inputs \(agent\.digest: [0-9a-f]{64} -> [0-9a-f]{64}\)/,
      );
      expect(server.requests.length).toBe(0);
    } finally {
      delete process.env[KEY_ENV];
    }
  });

  it("resumes with the same inputs and runs only what is missing", async () => {
    const taker = inOrderExamTaker();
    server = await startModelServer((req, i) =>
      i === 2 ? { status: 400, message: "scripted refusal" } : taker(req),
    );
    const project = examProject("anthropic", server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    try {
      expect(
        await exam(capture(project), "arith", {
          ...DEFAULTS,
          agent: "examiner",
          budget: "400",
          runId: "r4",
          concurrency: 1,
        }),
      ).toBe(1);
      const before = server.requests.length; // 2 + 1 refused
      const again = capture(project);
      expect(await exam(again, undefined, { ...DEFAULTS, resume: "r4", json: true })).toBe(0);
      expect(again.err()).toMatch(/resuming: 1 of 2 exams already finished/);
      expect(server.requests.length - before).toBe(2); // exam 2 only: reasoning + extraction
      const summary = JSON.parse(again.out());
      expect(summary).toEqual(expect.objectContaining({ planned: 2, finished: 2, failed: 0 }));
      expect(records(project, "r4").length).toBe(3);
    } finally {
      delete process.env[KEY_ENV];
    }
  });
});

describe("kgate exam: bad input", () => {
  it("names the file and line of a bad item, the option of a bad value, the unit without difficulty", async () => {
    const project = examProject("anthropic", "http://127.0.0.1:9");
    process.env[KEY_ENV] = "sk-test";
    const attempt = (pool: string, extra: Record<string, string>) =>
      // the endpoint is a dead placeholder: --no-ping, so each input error is reached (not the ping's)
      exam(capture(project), pool, { ...DEFAULTS, agent: "examiner", budget: "100", ping: false, ...extra });
    try {
      await expect(attempt("arith", { scheme: "fixed,bogus" })).rejects.toThrow(
        /--scheme: "bogus" is not one of fixed, random, aligned, reversed/,
      );
      await expect(attempt("arith", { n: "9" })).rejects.toThrow(/needs a pool of at least 9 \(it has 8\)/);
      await expect(attempt("arith", { agent: "nobody" })).rejects.toThrow(/unknown agent "nobody"/);
      writeFileSync(
        path.join(project.root, "items", "bad.jsonl"),
        '{"id":"a","prompt":"p","answer":"x"}\n{"id":"b","prompt":"q"}\n',
      );
      await expect(attempt("bad", {})).rejects.toThrow(/bad\.jsonl:2 \(answer\)/);
      writeFileSync(
        path.join(project.root, "items", "flat.jsonl"),
        '{"id":"a","prompt":"p","answer":"x"}\n{"id":"b","prompt":"q","answer":"y"}\n',
      );
      await expect(attempt("flat", { n: "2", scheme: "aligned" })).rejects.toThrow(
        /aligned point scheme needs a difficulty for every unit.*: [ab], [ab]/,
      );
    } finally {
      delete process.env[KEY_ENV];
    }
  });
});

describe("kgate exam --make-reference and --reference", () => {
  /** One-question exams: item sum-i costs 100 i output tokens and is answered right when i is odd. */
  const referenceTaker = (request: SeenRequest): ScriptStep => {
    const messages = request.body.messages as Array<{ role: string; content: unknown }>;
    const content = messages[0]!.content;
    // a string, or text blocks (Anthropic requests carry user text as blocks, for a stable cached prefix)
    const first =
      typeof content === "string"
        ? content
        : (content as Array<{ text?: string }>).map((b) => b.text ?? "").join("\n");
    const [q] = questionsOf(first);
    const i = q!.sum / 11;
    if (messages.length === 1) return { text: "Question 1: adding.", usage: { input: 50, output: 100 * i } };
    return { text: `Q1: ${i % 2 === 1 ? q!.sum : q!.sum + 1}`, usage: { input: 80, output: 4 } };
  };

  it("writes accuracy and mean tokens per item, then ranks units by value density in the exam", async () => {
    server = await startModelServer(referenceTaker);
    const project = examProject("anthropic", server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    try {
      const made = capture(project);
      const options = {
        ...DEFAULTS,
        agent: "examiner",
        budget: "8000",
        trials: "2",
        makeReference: "ref.jsonl",
      };
      expect(await exam(made, "arith", options)).toBe(0);
      // 8 items x 2 trials x 2 turns
      expect(server.requests.length).toBe(32);
      // lines in completion order (two trials in flight by default): compared by id
      const lines = readFileSync(path.join(project.root, "ref.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .sort((a, b) => a.id.localeCompare(b.id));
      expect(lines.map(({ provenance, ...entry }) => entry)).toEqual(
        Array.from({ length: 8 }, (_, k) => ({
          id: `sum-${k + 1}`,
          accuracy: (k + 1) % 2,
          tokens: 100 * (k + 1),
        })),
      );
      expect(lines[0].provenance).toMatchObject({
        kind: "items",
        agent: { name: "examiner" },
        condition: null,
        budget: 8000,
        trials: 2,
        runId: null,
      });
      // a rerun on the same file keeps every unit and calls nothing; another budget is refused
      const again = capture(project);
      expect(await exam(again, "arith", options)).toBe(0);
      expect(server.requests.length).toBe(32);
      expect(again.out()).toMatch(/0 unit\(s\) written to ref\.jsonl, 8 kept, 0 failed/);
      await expect(exam(capture(project), "arith", { ...options, budget: "9000" })).rejects.toThrow(
        /ref\.jsonl: line 1 \("sum-\d"\) was measured with another budget \(8000, now 9000\)/,
      );
      await server.close();

      server = await startModelServer(inOrderExamTaker());
      writeJson(project.config, {
        agents: {
          examiner: {
            harness: "builtin",
            provider: "anthropic",
            model: "scripted-examiner",
            baseUrl: server.anthropicUrl,
            apiKeyEnv: KEY_ENV,
          },
        },
      });
      // tau 25: t = 36, 30, 24 puts positions 1 and 2 in W
      const ctx = capture(project);
      expect(
        await exam(ctx, "arith", {
          ...DEFAULTS,
          agent: "examiner",
          budget: "400",
          runId: "r5",
          tau: "25",
          reference: "ref.jsonl",
        }),
      ).toBe(0);
      for (const r of records(project, "r5")) {
        expect(r.units.map((u) => u.inWork)).toEqual([true, true, false]);
        // density 10 x acc / tokens: sum-i is 10 / (100 i) for odd i, 0 for even i
        const density = r.units.map((u) => {
          const i = Number(u.id.slice(4));
          return i % 2 === 1 ? 10 / (100 * i) : 0;
        });
        for (const [k, u] of r.units.entries()) expect(u.density).toBeCloseTo(density[k]!, 12);
        // top-2 by density, ties to the earlier position; overlap with W = {0, 1}
        const top = density
          .map((d, k) => ({ d, k }))
          .sort((a, b) => b.d - a.d || a.k - b.k)
          .slice(0, 2)
          .map((x) => x.k);
        expect(r.stats.densityOverlap).toBe(top.filter((k) => k < 2).length / 2);
      }
    } finally {
      delete process.env[KEY_ENV];
    }
  });
});

describe("kgate exam: a reasoning turn cut off at B", () => {
  it("records the provider's max-tokens stop and still attributes and checks what was written", async () => {
    const taker = inOrderExamTaker();
    // the reasoning reply is reported as cut off at the output cap
    server = await startModelServer((req) => {
      const step = taker(req);
      return (req.body.messages as unknown[]).length === 1 ? { ...step, truncated: true } : step;
    });
    const project = examProject("anthropic", server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    try {
      expect(
        await exam(capture(project), "arith", {
          ...DEFAULTS,
          exams: "1",
          agent: "examiner",
          budget: "100",
          runId: "r6",
        }),
      ).toBe(0);
    } finally {
      delete process.env[KEY_ENV];
    }
    const [r] = records(project, "r6");
    expect(r!.stopReason).toBe("max-tokens");
    expect(r!.units.map((u) => u.tokens)).toEqual([36, 30, 24]); // as in the bin test: the same trace
    expect(r!.score).toBeCloseTo(2 / 3, 12);
  });
});
