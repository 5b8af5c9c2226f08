// `kgate exam --concurrency`: item exams side by side through the real bin and SDK client against the
// loopback model server (a scripted exam-taker, not a real model; reasoning replies delayed so that
// exams overlap and finish out of order). The same seeded run gives the same records and report at concurrency 1 and 3; a run
// killed with SIGKILL mid-way resumes without repeating the exams it had finished.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ExamRecord } from "../src/exam/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { KGATE_BIN } from "./support/cli.ts";
import { inOrderExamTaker, questionsOf } from "./support/exam-model.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const KEY_ENV = "KGATE_EXAM_CONCURRENCY_KEY";
const TIMEOUT = 120_000;

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function firstText(request: SeenRequest): string {
  const first = (request.body.messages as Array<{ content: unknown }>)[0]!.content;
  return typeof first === "string"
    ? first
    : (first as Array<{ text?: string }>).map((b) => b.text ?? "").join("");
}

/**
 * The in-order exam-taker, its reasoning replies delayed by the exam's first item (sum-i: 100 + 150 (i mod 3)
 * ms), so that at concurrency > 1 exams finish out of plan order; extraction replies at once.
 */
function slowTaker() {
  const taker = inOrderExamTaker();
  return (request: SeenRequest) => {
    const step = taker(request);
    if ((request.body.messages as unknown[]).length > 1) return step;
    const first = questionsOf(firstText(request))[0]!.sum / 11;
    return { ...step, delayMs: 100 + 150 * (first % 3) };
  };
}

/** items/arith.jsonl: 6 sums, item sum-i asks i + 10 i (difficulty i); one agent on the loopback server. */
function project(url: string): ProjectPaths {
  const paths = tempProject();
  mkdirSync(path.join(paths.root, "items"));
  const lines = Array.from({ length: 6 }, (_, i) =>
    JSON.stringify({
      id: `sum-${i + 1}`,
      prompt: `What is ${i + 1} + ${10 * (i + 1)}?`,
      answer: 11 * (i + 1),
      checker: "number",
      difficulty: i + 1,
    }),
  );
  writeFileSync(path.join(paths.root, "items", "arith.jsonl"), `${lines.join("\n")}\n`);
  writeJson(paths.config, {
    agents: {
      examiner: {
        harness: "builtin",
        provider: "anthropic",
        model: "scripted-examiner",
        baseUrl: url,
        apiKeyEnv: KEY_ENV,
        retry: { maxRetries: 0 },
      },
    },
  });
  return paths;
}

// sizes 3 and 4, 6 base exams each, random points: 12 exams in 2 groups of 6 (enough values that the
// bootstrap interval depends on the order they are read in)
const PLAN = ["--n", "3,4", "--exams", "6", "--scheme", "random"];
const PLANNED = 2 * 6;

function examArgs(paths: ProjectPaths, ...rest: string[]): string[] {
  return ["--root", paths.root, "exam", "arith", "--agent", "examiner", "--budget", "400", ...PLAN, ...rest];
}

function records(paths: ProjectPaths, runId: string): ExamRecord[] {
  const file = path.join(paths.runs, runId, "exams.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => ExamRecord.parse(JSON.parse(l)));
}

/** A record without what differs between two runs of the same plan: run id and times. */
function comparable(r: ExamRecord) {
  const { runId, startedAt, finishedAt, ...rest } = r;
  return rest;
}

/** Most exams whose [startedAt, finishedAt] intervals overlap at one instant. */
function maxOverlap(rs: readonly ExamRecord[]): number {
  const events = rs.flatMap((r) => [
    { at: Date.parse(r.startedAt), d: 1 },
    { at: Date.parse(r.finishedAt), d: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.d - b.d); // an end before a start at the same millisecond
  let now = 0;
  let most = 0;
  for (const e of events) {
    now += e.d;
    most = Math.max(most, now);
  }
  return most;
}

/** An exam as its reasoning prompt shows it: per position, the points and the item (sum-i sums to 11 i). */
const fromRecord = (r: ExamRecord) => r.units.map((u) => `${u.points}:${u.id}`).join(",");
const fromRequest = (request: SeenRequest) =>
  questionsOf(firstText(request))
    .map((q) => `${q.points}:sum-${q.sum / 11}`)
    .join(",");

describe("kgate exam --concurrency", () => {
  it("gives the same records and report at concurrency 3 as at 1, with at most 3 exams at once", {
    timeout: TIMEOUT,
  }, async () => {
    server = await startModelServer(slowTaker());
    const paths = project(server.anthropicUrl);
    const env = { [KEY_ENV]: "sk-test" };
    const one = await kgateAsync(examArgs(paths, "--concurrency", "1", "--run-id", "c1"), env);
    expect(one.code).toBe(0);
    const three = await kgateAsync(examArgs(paths, "--concurrency", "3", "--run-id", "c3"), env);
    expect(three.code).toBe(0);
    const [r1, r3] = [records(paths, "c1"), records(paths, "c3")];
    expect(r1.length).toBe(PLANNED);
    expect(r3.length).toBe(PLANNED);
    const byKey = (rs: ExamRecord[]) => [...rs].sort((a, b) => a.key.localeCompare(b.key)).map(comparable);
    expect(byKey(r3)).toEqual(byKey(r1));
    // one at a time, then overlapping but never more than three
    expect(maxOverlap(r1)).toBe(1);
    expect(maxOverlap(r3)).toBeGreaterThan(1);
    expect(maxOverlap(r3)).toBeLessThanOrEqual(3);
    const report = (runId: string) => {
      const { runId: _, ...rest } = JSON.parse(
        readFileSync(path.join(paths.runs, runId, "report.json"), "utf8"),
      );
      return rest;
    };
    expect(report("c3")).toEqual(report("c1"));
  });

  it("resumes a run killed with SIGKILL without repeating the exams it had finished", {
    timeout: TIMEOUT,
  }, async () => {
    server = await startModelServer(slowTaker());
    const paths = project(server.anthropicUrl);
    const child = spawn(
      process.execPath,
      [KGATE_BIN, ...examArgs(paths, "--concurrency", "2", "--run-id", "k1")],
      {
        env: { ...process.env, NO_COLOR: "1", CI: "true", [KEY_ENV]: "sk-test" },
        stdio: "ignore",
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_, signal) => resolve(signal)),
    );
    // kill it once 3 exams are recorded (each takes at least 100 ms: far from all 12)
    const deadline = Date.now() + 60_000;
    while (records(paths, "k1").length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const before = records(paths, "k1");
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before.length).toBeLessThan(PLANNED);
    const seenBefore = server.requests.length;

    const resumed = await kgateAsync(["--root", paths.root, "exam", "--resume", "k1", "--concurrency", "2"], {
      [KEY_ENV]: "sk-test",
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming: ${before.length} of ${PLANNED} exams already finished`);
    const after = records(paths, "k1");
    // every planned exam once: the finished ones kept, the rest (those in flight at the kill included) run
    expect(after.length).toBe(PLANNED);
    expect(new Set(after.map((r) => r.key)).size).toBe(PLANNED);
    expect(after.slice(0, before.length)).toEqual(before);
    // the reasoning turns after the kill ask exactly the exams recorded after it (none finished before)
    const asked = server.requests
      .slice(seenBefore)
      .filter((r) => (r.body.messages as unknown[]).length === 1)
      .map(fromRequest);
    expect(asked.sort()).toEqual(after.slice(before.length).map(fromRecord).sort());
  });
});
