// `kgate exam --tasks <ids> --make-reference`: each task alone in its own real sandbox through the
// trial engine, a scripted built-in-loop agent on the loopback model server (scripted replies, not a
// real model); the reference file's accuracies and tokens by hand from the script, then a task exam
// that reads it: difficulty 1 - accuracy orders the units, the density overlap by hand.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ExamRecord, ReferenceLine } from "../src/exam/index.ts";
import type { ProjectPaths } from "../src/project.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { type ModelServer, type SeenRequest, startModelServer, turnIndex } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const KEY_ENV = "KGATE_EXAM_REFERENCE_KEY";
const TIMEOUT = 300_000;
// The scaffolded task: input.csv has widget,3 and gadget,5; the artefact's markup is 12%.
const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";
const WRONG = "item,value\nwidget,3.00\ngadget,5.00\n";

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function firstText(request: SeenRequest): string {
  const first = (request.body.messages as Array<{ content: unknown }>)[0]!.content;
  return typeof first === "string"
    ? first
    : (first as Array<{ text?: string }>).map((b) => b.text ?? "").join("\n");
}

const write = (file: string, content: string) => ({ name: "write_file", input: { path: file, content } });
const finish = { name: "finish", input: { summary: "done" } };

/**
 * Alone (the task's own instruction, which ends in its marker): alpha writes the right output (100 in,
 * 30 out) and finishes (100 in, 10 out). beta's first trial does the same at 60 out, its second writes a
 * wrong output at 160 out (100 + 160 >= B = 250: the loop stops there). In an exam (the shared
 * instruction lists task-k folders): task-1 at 50 out, task-2 at 20 out, then finish at 10 out.
 */
function script() {
  let betaTrials = 0;
  return (request: SeenRequest) => {
    const text = firstText(request);
    const t = turnIndex(request);
    if (/^task-1 \(\d+ points\)/m.test(text)) {
      if (t === 0)
        return { toolCalls: [write("task-1/output/result.csv", CORRECT)], usage: { input: 100, output: 50 } };
      if (t === 1)
        return { toolCalls: [write("task-2/output/result.csv", CORRECT)], usage: { input: 100, output: 20 } };
      return { toolCalls: [finish], usage: { input: 100, output: 10 } };
    }
    if (t > 0) return { toolCalls: [finish], usage: { input: 100, output: 10 } };
    if (text.includes("marker: alpha"))
      return { toolCalls: [write("output/result.csv", CORRECT)], usage: { input: 100, output: 30 } };
    betaTrials += 1;
    return betaTrials === 1
      ? { toolCalls: [write("output/result.csv", CORRECT)], usage: { input: 100, output: 60 } }
      : { toolCalls: [write("output/result.csv", WRONG)], usage: { input: 100, output: 160 } };
  };
}

function project(url: string): ProjectPaths {
  const paths = tempProject();
  for (const id of ["alpha", "beta"]) {
    scaffoldTask(paths, { id, gate: "convention" });
    appendFileSync(path.join(paths.tasks, id, "instruction.md"), `\nmarker: ${id}\n`);
  }
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

describe("kgate exam --tasks --make-reference (real sandboxes)", () => {
  it("measures each task alone through the trial engine; an exam reads accuracy, tokens and difficulty from it", {
    timeout: TIMEOUT,
  }, async () => {
    sandboxImage();
    server = await startModelServer(script());
    const paths = project(server.anthropicUrl);
    const env = { [KEY_ENV]: "sk-test" };
    const made = await kgateAsync(
      [
        "--root",
        paths.root,
        "exam",
        "--tasks",
        "alpha,beta",
        "--agent",
        "loop",
        "--budget",
        "250",
        "--trials",
        "2",
        "--make-reference",
        "ref/tasks.jsonl",
        "--run-id",
        "ref1",
        "--json",
      ],
      env,
    );
    expect(made.stderr).not.toMatch(/error/);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toEqual({
      file: "ref/tasks.jsonl",
      runId: "ref1",
      written: 2,
      kept: 0,
      failed: [],
    });
    // 2 tasks x 2 trials: alpha 2 calls each, beta 2 calls then 1 call (stopped at the budget)
    expect(server.requests.length).toBe(2 + 2 + 2 + 1);
    const lines = readFileSync(path.join(paths.root, "ref", "tasks.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => ReferenceLine.parse(JSON.parse(l)));
    const byId = new Map(lines.map((l) => [l.id, l]));
    // alpha: 2 passes of 2, 30 + 10 output tokens each trial
    expect(byId.get("alpha")).toMatchObject({ accuracy: 1, tokens: 40 });
    // beta: 1 pass of 2; (60 + 10) and 160 (the task's own limit of 500000 would have let it finish: 170)
    expect(byId.get("beta")).toMatchObject({ accuracy: 1 / 2, tokens: (70 + 160) / 2 });
    expect(byId.get("beta")!.provenance).toMatchObject({
      kind: "tasks",
      agent: { name: "loop" },
      condition: "+A",
      budget: 250,
      trials: 2,
      runId: "ref1",
    });
    expect(byId.get("beta")!.provenance!.agent.digest).toMatch(/^[0-9a-f]{64}$/);
    // the four trials are ordinary trial records of run ref1
    const trials = readFileSync(path.join(paths.runs, "ref1", "trials.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(trials.length).toBe(4);

    const examined = await kgateAsync(
      [
        "--root",
        paths.root,
        "exam",
        "--tasks",
        "alpha,beta",
        "--agent",
        "loop",
        "--n",
        "2",
        "--exams",
        "1",
        "--order",
        "ascending,descending",
        "--budget",
        "100000",
        "--tau",
        "30",
        "--reference",
        "ref/tasks.jsonl",
        "--run-id",
        "e1",
      ],
      env,
    );
    expect(examined.code).toBe(0);
    const records = readFileSync(path.join(paths.runs, "e1", "exams.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => ExamRecord.parse(JSON.parse(l)));
    const byOrder = new Map(records.map((r) => [r.order, r]));
    // difficulty 1 - accuracy: alpha 0, beta 1/2; ascending presents alpha first, descending beta
    expect(byOrder.get("ascending")!.units.map((u) => u.id)).toEqual(["alpha", "beta"]);
    expect(byOrder.get("descending")!.units.map((u) => u.id)).toEqual(["beta", "alpha"]);
    for (const r of records) {
      // task-1 got 50 tokens, task-2 20: tau 30 puts position 1 alone in W
      expect(r.units.map((u) => u.tokens)).toEqual([50, 20]);
      expect(r.units.map((u) => u.inWork)).toEqual([true, false]);
      // density 10 x acc / tokens: alpha 10 x 1 / 40 = 0.25, beta 10 x 0.5 / 115 = 1/23
      const density = { alpha: 0.25, beta: 1 / 23 };
      for (const u of r.units) expect(u.density).toBeCloseTo(density[u.id as "alpha" | "beta"], 12);
    }
    // top-1 by density is alpha: W = {alpha} overlaps it fully, W = {beta} not at all
    expect(byOrder.get("ascending")!.stats.densityOverlap).toBe(1);
    expect(byOrder.get("descending")!.stats.densityOverlap).toBe(0);

    // the same command again keeps both units and runs nothing; another --trials is refused, naming it
    const seen = server.requests.length;
    const again = await kgateAsync(
      [
        "--root",
        paths.root,
        "exam",
        "--tasks",
        "alpha,beta",
        "--agent",
        "loop",
        "--budget",
        "250",
        "--trials",
        "2",
        "--make-reference",
        "ref/tasks.jsonl",
        "--run-id",
        "ref2",
      ],
      env,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/0 unit\(s\) written to ref\/tasks\.jsonl, 2 kept, 0 failed/);
    expect(server.requests.length).toBe(seen);
    const other = await kgateAsync(
      [
        "--root",
        paths.root,
        "exam",
        "--tasks",
        "alpha,beta",
        "--agent",
        "loop",
        "--budget",
        "250",
        "--trials",
        "3",
        "--make-reference",
        "ref/tasks.jsonl",
      ],
      env,
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /tasks\.jsonl: line 1 \("(alpha|beta)"\) was measured with another trials \(2, now 3\)/,
    );
  });
});
