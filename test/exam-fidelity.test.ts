// The exam protocol as the paper states it (issue 30, items 1-3): the extraction turn is greedy
// whatever the configuration's temperature, and says so in the record; the attribution marker is a
// named prompt option, off by default; a reference unit solved at 0 tokens is infinitely dense
// without losing its exams; a record its schema refuses becomes that exam's error record. Real SDK
// clients against the loopback model server (scripted replies, not a real model).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../src/commands/context.ts";
import { run as exam } from "../src/commands/exam.ts";
import {
  type ExamProvenance,
  ExamRecord,
  type ExamRun,
  planExams,
  readExamRecords,
  runExams,
} from "../src/exam/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { inOrderExamTaker } from "./support/exam-model.ts";
import { arithExamProject } from "./support/exam-project.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";

const KEY_ENV = "KGATE_EXAM_FIDELITY_KEY";

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  delete process.env[KEY_ENV];
});

function capture(paths: ProjectPaths): CommandContext & { err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const e: Buffer[] = [];
  stdout.resume();
  stderr.on("data", (c: Buffer) => e.push(c));
  return { paths, stdout, stderr, err: () => Buffer.concat(e).toString() };
}

function records(project: ProjectPaths, runId: string): ExamRecord[] {
  return readFileSync(path.join(project.runs, runId, "exams.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => ExamRecord.parse(JSON.parse(line)));
}

const OPTIONS = {
  n: "3",
  exams: "2",
  scheme: "fixed",
  order: "random",
  prompt: "baseline",
  seed: "2",
  trials: "1",
  agent: "examiner",
  budget: "400",
  concurrency: 1, // one exam at a time: requests come in pairs (reasoning, extraction)
};

const userText = (body: Record<string, unknown>) => {
  const content = (body.messages as Array<{ content: unknown }>)[0]!.content;
  return typeof content === "string"
    ? content
    : (content as Array<{ text?: string }>).map((b) => b.text ?? "").join("");
};

describe("the extraction turn is greedy (item 1)", () => {
  it.each([
    ["anthropic", "anthropicUrl"],
    ["openai-compatible", "openaiUrl"],
  ] as const)(
    "%s: reasoning at the configuration's 0.6, extraction at 0, recorded",
    async (provider, url) => {
      server = await startModelServer(inOrderExamTaker());
      const project = arithExamProject(provider, server[url], KEY_ENV, { temperature: 0.6 });
      process.env[KEY_ENV] = "sk-test";
      expect(await exam(capture(project), "arith", { ...OPTIONS, runId: "greedy" })).toBe(0);
      // 2 exams x (reasoning, extraction), in that order
      expect(server.requests.map((r) => r.body.temperature)).toEqual([0.6, 0, 0.6, 0]);
      for (const r of records(project, "greedy")) expect(r.extractionTemperature).toBe(0);
    },
  );
});

describe("the attribution marker is a named option, off by default (item 3)", () => {
  const MARKER = 'When you work on a question, name it ("Question 3" or "Q3").';

  it("is not in the prompt unless --name-questions is given; exam.json and every record say which", async () => {
    server = await startModelServer(inOrderExamTaker());
    const project = arithExamProject("anthropic", server.anthropicUrl, KEY_ENV);
    process.env[KEY_ENV] = "sk-test";
    expect(await exam(capture(project), "arith", { ...OPTIONS, runId: "plain" })).toBe(0);
    expect(await exam(capture(project), "arith", { ...OPTIONS, runId: "named", nameQuestions: true })).toBe(
      0,
    );
    const reasoning = server.requests.filter((r) => (r.body.messages as unknown[]).length === 1);
    expect(reasoning).toHaveLength(4);
    expect(reasoning.slice(0, 2).map((r) => userText(r.body).includes(MARKER))).toEqual([false, false]);
    expect(reasoning.slice(2).map((r) => userText(r.body).includes(MARKER))).toEqual([true, true]);
    for (const [run, named] of [
      ["plain", false],
      ["named", true],
    ] as const) {
      const file = JSON.parse(readFileSync(path.join(project.runs, run, "exam.json"), "utf8"));
      expect(file.factors.nameQuestions).toBe(named);
      expect(records(project, run).map((r) => r.nameQuestions)).toEqual([named, named]);
    }
  });

  it("keeps the run's setting on resume, and a record made before the option reads as asked", async () => {
    const taker = inOrderExamTaker();
    // the second exam's reasoning turn is refused the first time
    server = await startModelServer((req, i) => (i === 2 ? { status: 400, message: "refused" } : taker(req)));
    const project = arithExamProject("anthropic", server.anthropicUrl, KEY_ENV);
    process.env[KEY_ENV] = "sk-test";
    expect(await exam(capture(project), "arith", { ...OPTIONS, runId: "r", nameQuestions: true })).toBe(1);
    expect(await exam(capture(project), undefined, { ...OPTIONS, resume: "r" })).toBe(0);
    const resumed = server.requests.at(-2)!; // the rerun exam's reasoning turn
    expect(userText(resumed.body)).toContain(MARKER);
    // an older record has no nameQuestions: the marker was always sent then
    const old = { ...records(project, "r")[0]! } as Record<string, unknown>;
    delete old.nameQuestions;
    delete old.extractionTemperature;
    const parsed = ExamRecord.parse(old);
    expect([parsed.nameQuestions, parsed.extractionTemperature]).toEqual([true, null]);
  });

  it("is refused for task exams, whose attribution reads the task folders", async () => {
    const project = arithExamProject("anthropic", "http://127.0.0.1:9", KEY_ENV);
    await expect(
      exam(capture(project), undefined, { ...OPTIONS, tasks: "a,b", nameQuestions: true }),
    ).rejects.toThrow(/--name-questions is for item and inline-task exams/);
  });
});

describe("a reference unit solved at 0 tokens (item 2)", () => {
  it("is infinitely dense: ranked first, recorded as null with its flag, and no exam is lost", async () => {
    server = await startModelServer(inOrderExamTaker());
    const project = arithExamProject("anthropic", server.anthropicUrl, KEY_ENV);
    process.env[KEY_ENV] = "sk-test";
    // sum-1 solved at 0 tokens with accuracy 1; every other unit accuracy 0.5 at 100 tokens:
    // density 10 x 0.5 / 100 = 0.05
    const lines = Array.from({ length: 8 }, (_, k) =>
      JSON.stringify(
        k === 0
          ? { id: "sum-1", accuracy: 1, tokens: 0 }
          : { id: `sum-${k + 1}`, accuracy: 0.5, tokens: 100 },
      ),
    );
    writeFileSync(path.join(project.root, "ref.jsonl"), `${lines.join("\n")}\n`);
    // every exam holds all 8 units, so every exam holds sum-1
    const code = await exam(capture(project), "arith", {
      ...OPTIONS,
      n: "8",
      exams: "3",
      runId: "dense",
      reference: "ref.jsonl",
      tau: "45",
    });
    expect(code).toBe(0);
    const rs = records(project, "dense");
    expect(rs).toHaveLength(3);
    for (const r of rs) {
      expect(r.error).toBeNull();
      for (const u of r.units) {
        expect(u.densityInfinite).toBe(u.id === "sum-1");
        expect(u.density).toBe(u.id === "sum-1" ? null : 0.05);
      }
      // The exam-taker writes 3 + 3 (8 - k + 1) + 6 = 36 - 3k pieces on position k, 2 tokens a
      // piece: t_k = 66, 60, 54, 48, 42, 36, 30, 24 for k = 1..8; tau 45 puts positions 1-4 in W. Top-4 by density: sum-1 (infinite), then the earliest three of the
      // others (equal densities go to the earlier position).
      expect(r.units.map((u) => u.inWork)).toEqual([true, true, true, true, false, false, false, false]);
      const first = r.units.findIndex((u) => u.id === "sum-1");
      const others = [0, 1, 2, 3, 4, 5, 6, 7].filter((k) => k !== first).slice(0, 3);
      const top = new Set([first, ...others]);
      expect(r.stats.densityOverlap).toBe([0, 1, 2, 3].filter((k) => top.has(k)).length / 4);
    }
  });
});

describe("a record that fails its schema (item 2)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-exam-engine-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("becomes that exam's error record; the other exams are kept", async () => {
    const units = Array.from({ length: 4 }, (_, i) => ({ id: `u${i}`, difficulty: null }));
    const specs = planExams(units, {
      seed: 1,
      sizes: [2],
      examsPerSize: 2,
      schemes: ["fixed"],
      orders: ["random"],
      prompts: ["baseline"],
      nameQuestions: false,
    });
    const provenance: ExamProvenance = {
      runId: "engine",
      kind: "items",
      pool: { name: "p", digest: "0".repeat(64) },
      agent: { name: "a", digest: "1".repeat(64), harness: "exam-items", model: "m" },
      kgateVersion: "0",
      budget: 100,
      tau: 16,
    };
    const run = (score: number): ExamRun => ({
      usage: {
        inputTokens: 1,
        outputTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        callsChargedAtReservation: 0,
        modelCalls: 1,
        costUsd: null,
      },
      extractionUsage: null,
      stopReason: "end",
      outcomes: [
        { score, correct: true, answer: "x" },
        { score: 0, correct: false, answer: null },
      ],
      attribution: { tokens: [20, 0], order: [0.5, null], unattributed: 0, total: 20 },
    });
    // the first exam's run reports a unit score of 2, which the record's schema (0..1) refuses
    const { records: written } = await runExams(specs, new Set(), new Map(), {
      provenance,
      runDir: dir,
      reference: null,
      concurrency: 1,
      runOne: async (spec) => run(spec.key === specs[0]!.key ? 2 : 1),
    });
    expect(written).toHaveLength(2);
    const { records: rs, problems } = readExamRecords(dir);
    expect(problems).toEqual([]);
    const byKey = new Map(rs.map((r) => [r.key, r]));
    const bad = byKey.get(specs[0]!.key)!;
    expect(bad.error?.kind).toBe("internal");
    expect(bad.error?.message).toMatch(/the exam's record failed its schema at units\[0\]\.score/);
    const good = byKey.get(specs[1]!.key)!;
    expect(good.error).toBeNull();
    expect(good.score).toBe(0.5); // 10 x 1 + 10 x 0 over 20
  });
});
