// Task exams end to end in real sandboxes: three scaffolded tasks in one container (task-k/ folders),
// a scripted built-in-loop agent on the loopback model server (scripted replies, not a real model) that
// works the tasks in presentation order, each task verified by its own verifier on the host.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ExamRecord } from "../src/exam/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { type ModelServer, type SeenRequest, startModelServer, turnIndex } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const KEY_ENV = "KGATE_EXAM_TASKS_KEY";
const TIMEOUT = 240_000;
// The scaffolded task: input.csv has widget,3 and gadget,5; the artefact's markup is 12%.
const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

/** How many folders the shared instruction lists ("task-k (p points): ..."). */
function taskCount(request: SeenRequest): number {
  const first = (request.body.messages as Array<{ content: unknown }>)[0]!.content;
  // a string, or text blocks (the built-in loop sends user text as blocks, for a stable cached prefix)
  const text =
    typeof first === "string"
      ? first
      : (first as Array<{ text?: string }>).map((b) => b.text ?? "").join("\n");
  return [...text.matchAll(/^task-\d+ \(\d+ points\)/gm)].length;
}

/** Turn t writes task-(t+1)'s output; after the last task it calls finish. 100 in, 50 out each turn. */
function inOrderAgent(request: SeenRequest) {
  const t = turnIndex(request);
  const usage = { input: 100, output: 50 };
  if (t < taskCount(request))
    return {
      text: `working on task-${t + 1}`,
      toolCalls: [
        { name: "write_file", input: { path: `task-${t + 1}/output/result.csv`, content: CORRECT } },
      ],
      usage,
    };
  return { text: "done", toolCalls: [{ name: "finish", input: { summary: "all tasks written" } }], usage };
}

function project(url: string): ProjectPaths {
  const paths = tempProject();
  for (const id of ["alpha", "beta", "gamma"]) scaffoldTask(paths, { id, gate: "convention" });
  writeJson(paths.config, {
    agents: {
      loop: {
        harness: "builtin",
        provider: "anthropic",
        model: "scripted-worker",
        baseUrl: url,
        apiKeyEnv: KEY_ENV,
        retry: { maxRetries: 0 },
      },
    },
  });
  return paths;
}

function records(paths: ProjectPaths, runId: string): ExamRecord[] {
  return readFileSync(path.join(paths.runs, runId, "exams.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => ExamRecord.parse(JSON.parse(line)));
}

/** `kgate exam --tasks alpha,beta,gamma --agent loop` with the key set, plus the given options. */
function examTasks(paths: ProjectPaths, options: string[]) {
  return kgateAsync(
    ["--root", paths.root, "exam", "--tasks", "alpha,beta,gamma", "--agent", "loop", ...options],
    { [KEY_ENV]: "sk-test" },
  );
}

describe("kgate exam --tasks (real sandbox)", () => {
  it("an agent that works the tasks in presentation order gives order-position rho = 1", {
    timeout: TIMEOUT,
  }, async () => {
    sandboxImage();
    server = await startModelServer(inOrderAgent);
    const paths = project(server.anthropicUrl);
    const result = await examTasks(paths, [
      "--n",
      "3",
      "--exams",
      "1",
      "--budget",
      "100000",
      "--run-id",
      "t1",
      "--json",
    ]);
    expect(result.stderr).toMatch(/\[1\/1\] n3-e0-fixed-random-baseline: score 1\.000/);
    expect(result.code).toBe(0);
    const [r] = records(paths, "t1");
    expect(r!.kind).toBe("tasks");
    expect(r!.stopReason).toBe("finish");
    // 4 turns of 50 output tokens: turns 1-3 touch task-1..task-3, the finish turn touches none
    expect(r!.units.map((u) => u.tokens)).toEqual([50, 50, 50]);
    expect(r!.unattributedTokens).toBe(50);
    expect(r!.units.every((u) => u.correct)).toBe(true);
    expect(r!.score).toBe(1);
    // o_i = midpoints 25, 75, 125 of 200 tokens: increasing with position, rho = 1
    expect(r!.units.map((u) => u.solvingOrder)).toEqual([25 / 200, 75 / 200, 125 / 200]);
    expect(r!.stats.orderPosition).toBeCloseTo(1, 12);
    expect(r!.stats.effortPosition).toBeNull(); // equal effort does not vary
    // 4 calls x (100 + 50) tokens under the budget
    expect(r!.usage.inputTokens + r!.usage.outputTokens).toBe(600);
    // the shared instruction names the folders, points and budget
    const instruction = JSON.stringify(server.requests[0]!.body.messages);
    expect(instruction).toMatch(/one budget of 100000 tokens/);
    expect(instruction).toMatch(/task-3 \(10 points\)/);
    // the session is one trial of the lifecycle's session form: its record names each task's verdict
    expect(r!.trial).toBe(`exam.${r!.key}`);
    const [session] = readTrialRecords(path.join(paths.runs, "t1")).records;
    expect(session).toMatchObject({ trialId: r!.trial, form: "session", error: null });
    expect(session!.session!.tasks.map((t) => [t.folder, t.verdict.status])).toEqual([
      ["task-1", "pass"],
      ["task-2", "pass"],
      ["task-3", "pass"],
    ]);
    expect(Object.keys(session!.phases)).toEqual([
      "create",
      "copyIn",
      "agent",
      "stop",
      "copyOut",
      "remove",
      "verify",
    ]);
    expect(session!.provenance!.sandboxProvider).toBe("docker");
    const trajectory = readFileSync(path.join(paths.runs, "t1", session!.trajectory!), "utf8");
    expect(trajectory).toMatch(/task-2\/output\/result\.csv/);
  });

  it("verifies each task in the killable worker: a verifier that dies on one task's output fails that task alone", {
    timeout: TIMEOUT,
  }, async () => {
    sandboxImage();
    server = await startModelServer(inOrderAgent);
    const paths = project(server.anthropicUrl);
    // beta's verifier builds an ever-growing array when it meets the agent's output: in kgate's own
    // process this would take the exam run down; in the worker it is killed at its heap limit.
    const verifier = path.join(paths.verifiers, "beta.ts");
    const source = readFileSync(verifier, "utf8");
    const growing = `  rubric: { "output/result.csv": { criteria: [{ name: "grows", check: (actual: unknown) => { if (actual !== undefined) { const a: number[][] = []; for (;;) a.push(new Array(1e6).fill(1)); } return true; } }] } },\n});`;
    writeFileSync(verifier, source.replace(/\}\);\s*$/, growing));
    const result = await examTasks(paths, [
      "--n",
      "3",
      "--exams",
      "1",
      "--budget",
      "100000",
      "--run-id",
      "t-crash",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [r] = records(paths, "t-crash");
    const correct = Object.fromEntries(r!.units.map((u) => [u.id, u.correct]));
    expect(correct).toEqual({ alpha: true, beta: false, gamma: true });
    // fixed points, 10 each: (10 + 0 + 10) / 30
    expect(r!.score).toBeCloseTo(20 / 30, 12);
  });

  it("a budget overrun stops the session; the unfinished tasks score 0", { timeout: TIMEOUT }, async () => {
    sandboxImage();
    server = await startModelServer(inOrderAgent);
    const paths = project(server.anthropicUrl);
    // B = 150: the first turn spends 100 + 50 = 150 >= B, so the loop stops before a second call
    const result = await examTasks(paths, ["--n", "3", "--exams", "1", "--budget", "150", "--run-id", "t2"]);
    expect(result.code).toBe(0);
    expect(server.requests.length).toBe(1);
    const [r] = records(paths, "t2");
    expect(r!.stopReason).toBe("token-budget");
    expect(r!.units.map((u) => u.correct)).toEqual([true, false, false]);
    // fixed points: 10 x 1 / (10 + 10 + 10)
    expect(r!.score).toBeCloseTo(1 / 3, 12);
    expect(r!.units.map((u) => u.tokens)).toEqual([50, 0, 0]);
    expect(r!.zeroRate).toBeCloseTo(2 / 3, 12);
    expect(r!.coverage).toBeCloseTo(1 / 3, 12);
    expect(result.stdout).toMatch(/N=3 fixed\/random\/baseline \(1 exams\): score 0\.33/);
  });

  it("runs task exams side by side (--concurrency 2) with the records of one at a time", {
    timeout: TIMEOUT,
  }, async () => {
    sandboxImage();
    server = await startModelServer(inOrderAgent);
    const paths = project(server.anthropicUrl);
    // 2 base exams of 2 of the 3 tasks each, at concurrency 1 then 2
    const runAt = (concurrency: string, runId: string) =>
      examTasks(paths, [
        "--n",
        "2",
        "--exams",
        "2",
        "--budget",
        "100000",
        "--concurrency",
        concurrency,
        "--run-id",
        runId,
      ]);
    expect((await runAt("1", "c1")).code).toBe(0);
    expect((await runAt("2", "c2")).code).toBe(0);
    const comparable = (rs: ExamRecord[]) =>
      rs.map(({ runId, startedAt, finishedAt, ...rest }) => rest).sort((a, b) => a.key.localeCompare(b.key));
    const [one, two] = [records(paths, "c1"), records(paths, "c2")];
    expect(one.length).toBe(2);
    expect(comparable(two)).toEqual(comparable(one));
    // one at a time: the first ends before the second starts; side by side: the two overlap
    const overlap = (rs: ExamRecord[]) =>
      Date.parse(rs[0]!.finishedAt) > Date.parse(rs[1]!.startedAt) &&
      Date.parse(rs[1]!.finishedAt) > Date.parse(rs[0]!.startedAt);
    expect(overlap(one)).toBe(false);
    expect(overlap(two)).toBe(true);
    // each exam: 2 write turns and a finish, every task verified
    for (const r of two) expect(r.units.map((u) => u.correct)).toEqual([true, true]);
  });
});
