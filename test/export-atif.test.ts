// Trajectories in Harbor's ATIF: each kind of kgate trajectory (the built-in loop, the oracle, an
// installed harness seen through the relay) as ATIF steps, validated against the schema and the
// validators of the ATIF models in test/fixtures/atif; the verdict and cost beside them; the
// validation itself refusing what Harbor's reader refuses. The command end to end, on records
// and trajectories of a real run: export-atif.docker.test.ts.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { atifTrajectory } from "../src/export/atif.ts";
import { ATIF_VERSION, AtifTrajectory, exportRunTrajectories } from "../src/export/index.ts";
import type { TrajectoryEvent } from "../src/record/index.ts";
import { atifProblems } from "./support/atif.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject } from "./support/project.ts";
import { makeRecord } from "./support/records.ts";

const at = (s: number) => new Date(Date.UTC(2026, 11, 7, 12, 0, s)).toISOString();
const event = (s: number, e: Record<string, unknown>) => ({ at: at(s), ...e }) as TrajectoryEvent;

const PASS = {
  status: "pass" as const,
  reward: 1,
  score: 1,
  criteria: [{ name: "matches the reference", passed: true }],
  attribution: null,
};

/** A built-in loop trial: two model turns, the first with two tool calls, then a stop note. */
function loopTrial() {
  const record = makeRecord({
    trialId: "bom.with-A.frontier.0",
    startedAt: at(0),
    finishedAt: at(9),
    agent: { name: "frontier", digest: "d".repeat(64), harness: "builtin", model: "claude-x" },
    usage: {
      inputTokens: 2200,
      outputTokens: 70,
      cacheReadTokens: 500,
      cacheWriteTokens: 100,
      cacheWrite1hTokens: 0,
      modelCalls: 2,
      callsChargedAtReservation: 0,
      costUsd: 0.013625,
    },
    verdict: PASS,
    trajectory: "trials/bom.with-A.frontier.0/trajectory.jsonl",
  });
  const events = [
    event(1, {
      type: "model",
      turn: 1,
      model: "claude-x",
      stopReason: "tool-use",
      usage: { input: 1000, output: 50, cacheRead: 200, cacheWrite: 100 },
      text: "I will read the data.",
      toolCalls: [
        { id: "t1", name: "bash" },
        { id: "t2", name: "read_file" },
      ],
    }),
    event(2, { type: "tool-call", turn: 1, id: "t1", name: "bash", input: { command: "ls" } }),
    event(3, { type: "tool-result", turn: 1, id: "t1", name: "bash", isError: false, output: "data.csv\n" }),
    event(3, { type: "tool-call", turn: 1, id: "t2", name: "read_file", input: { path: "data.csv" } }),
    event(4, {
      type: "tool-result",
      turn: 1,
      id: "t2",
      name: "read_file",
      isError: false,
      output: "a,b\n1,2\n",
    }),
    event(5, { type: "note", kind: "retry", message: "rate-limit (429), retry 1/2" }),
    event(6, {
      type: "model",
      turn: 2,
      model: "claude-x",
      stopReason: "end",
      usage: { input: 1200, output: 20, cacheRead: 300, cacheWrite: 0 },
      text: "done",
      toolCalls: [],
    }),
    event(7, { type: "note", kind: "stop", stopReason: "finish", turns: 2 }),
  ];
  return { record, events };
}

describe("a built-in loop trial as ATIF", () => {
  const { record, events } = loopTrial();
  const doc = atifTrajectory({
    record,
    events,
    instruction: "Cost the bill of materials.",
    kgateVersion: "0.1.0",
  });

  it("is a valid trajectory for the ATIF models", () => {
    expect(atifProblems(JSON.parse(JSON.stringify(doc)))).toEqual([]);
    expect(doc.schema_version).toBe(ATIF_VERSION);
    expect(doc.session_id).toBe("bom.with-A.frontier.0");
    expect(doc.agent).toMatchObject({ name: "builtin", model_name: "claude-x" });
  });

  it("puts the instruction first, then one agent step per model turn with its calls and their results", () => {
    expect(doc.steps.map((s) => [s.step_id, s.source, s.message])).toEqual([
      [1, "user", "Cost the bill of materials."],
      [2, "agent", "I will read the data."],
      [3, "agent", "done"],
    ]);
    expect(doc.steps[1]!.tool_calls).toEqual([
      { tool_call_id: "t1", function_name: "bash", arguments: { command: "ls" } },
      { tool_call_id: "t2", function_name: "read_file", arguments: { path: "data.csv" } },
    ]);
    expect(doc.steps[1]!.observation!.results).toEqual([
      { source_call_id: "t1", content: "data.csv\n" },
      { source_call_id: "t2", content: "a,b\n1,2\n" },
    ]);
    expect(doc.steps[0]!.timestamp).toBe(at(0));
    expect(doc.steps[2]!.timestamp).toBe(at(6));
  });

  it("counts every input token in prompt_tokens, the cache reads as cached, cache writes in extra", () => {
    // Turn 1: 1,000 uncached + 200 cache read + 100 cache write = 1,300 prompt tokens, 200 cached.
    expect(doc.steps[1]!.metrics).toEqual({
      prompt_tokens: 1300,
      completion_tokens: 50,
      cached_tokens: 200,
      extra: { cache_creation_input_tokens: 100 },
    });
    // Turn 2: 1,200 + 300 + 0 = 1,500, no cache write.
    expect(doc.steps[2]!.metrics).toEqual({ prompt_tokens: 1500, completion_tokens: 20, cached_tokens: 300 });
    // The record's totals: 2,200 + 500 + 100 = 2,800 prompt tokens (= 1,300 + 1,500), 70 out, 500 cached.
    expect(doc.final_metrics).toMatchObject({
      total_prompt_tokens: 2800,
      total_completion_tokens: 70,
      total_cached_tokens: 500,
      total_cost_usd: 0.013625,
      total_steps: 3,
    });
  });

  it("carries the verdict, cost and the events that are no step under extra.kgate", () => {
    const kgate = doc.extra!.kgate as Record<string, unknown>;
    expect(kgate.verdict).toEqual(PASS);
    expect(kgate.cost_usd).toBe(0.013625);
    expect((kgate.events as TrajectoryEvent[]).map((e) => e.kind)).toEqual(["retry", "stop"]);
    expect(doc.notes).toBe(
      "kgate trial bom.with-A.frontier.0: pass (reward 1, score 1.00); stop finish; cost $0.0136",
    );
  });
});

describe("other kinds of trajectory", () => {
  it("the oracle: its command is an agent step's tool call, the output its observation, no model", () => {
    const record = makeRecord({
      verdict: { ...PASS, status: "fail", reward: 0, score: 0, attribution: "format" },
    });
    const events = [
      event(1, { type: "note", text: "copied 1 solution file(s) to /home/agent/.kgate-solution" }),
      event(2, { type: "tool-call", tool: "bash", command: "bash solve.sh" }),
      event(3, {
        type: "tool-result",
        tool: "bash",
        exitCode: 0,
        stdout: "ok\n",
        stderr: "",
        timedOut: false,
      }),
    ];
    const doc = atifTrajectory({ record, events, instruction: null, kgateVersion: "0.1.0" });
    expect(atifProblems(JSON.parse(JSON.stringify(doc)))).toEqual([]);
    expect(doc.steps).toHaveLength(1);
    expect(doc.steps[0]).toMatchObject({
      step_id: 1,
      source: "agent",
      message: "",
      tool_calls: [
        { tool_call_id: "call-1", function_name: "bash", arguments: { command: "bash solve.sh" } },
      ],
      observation: { results: [{ source_call_id: "call-1", content: "exit code 0\nstdout:\nok\n" }] },
    });
    expect(doc.steps[0]!.metrics).toBeUndefined();
    // An unpriced configuration: no total_cost_usd, and the note says so.
    expect(doc.final_metrics!.total_cost_usd).toBeUndefined();
    expect(doc.notes).toContain("fail (reward 0, score 0.00); stop finish; cost unknown");
  });

  it("an installed harness through the relay: system prompt and user texts as steps, the instruction once", () => {
    const record = makeRecord({
      agent: { name: "cc", digest: "d".repeat(64), harness: "claude-code", model: null },
    });
    const events = [
      event(1, { type: "note", kind: "start", instruction: "Do it." }),
      event(2, { type: "note", kind: "harness-system-prompt", system: "You are Claude Code." }),
      event(2, {
        type: "note",
        kind: "harness-context",
        turn: 0,
        text: "Do it.",
        texts: 1,
        truncated: false,
      }),
      event(3, {
        type: "model",
        turn: 1,
        model: null,
        usage: {},
        text: "",
        toolCalls: [{ id: "x", name: "Bash" }],
      }),
      event(3, { type: "tool-call", turn: 1, id: "x", name: "Bash", input: "ls" }),
      // The relay caps narrated ids; a result that names no call it saw is kept without a source_call_id.
      event(4, { type: "tool-result", turn: 1, id: "y", isError: false, output: "z" }),
      event(4, {
        type: "note",
        kind: "harness-context",
        turn: 1,
        text: "<reminder>",
        texts: 1,
        truncated: false,
      }),
    ];
    const doc = atifTrajectory({ record, events, instruction: "Do it.", kgateVersion: "0.1.0" });
    expect(atifProblems(JSON.parse(JSON.stringify(doc)))).toEqual([]);
    expect(doc.steps.map((s) => [s.source, s.message])).toEqual([
      ["user", "Do it."],
      ["system", "You are Claude Code."],
      ["agent", ""],
      ["user", "<reminder>"],
    ]);
    // A call whose input is no JSON object keeps it under `input`: ATIF's arguments are an object.
    expect(doc.steps[2]!.tool_calls).toEqual([
      { tool_call_id: "x", function_name: "Bash", arguments: { input: "ls" } },
    ]);
    expect(doc.steps[2]!.observation!.results).toEqual([{ content: "z" }]);
    expect(doc.agent).toEqual({
      name: "claude-code",
      version: "kgate 0.1.0",
      extra: { kgate_configuration: "cc", kgate_configuration_digest: "d".repeat(64) },
    });
  });

  it("a trial with no trajectory and a changed instruction still has a step, saying why", () => {
    const doc = atifTrajectory({
      record: makeRecord(),
      events: [],
      instruction: null,
      kgateVersion: "0.1.0",
    });
    expect(atifProblems(JSON.parse(JSON.stringify(doc)))).toEqual([]);
    expect(doc.steps).toEqual([expect.objectContaining({ step_id: 1, source: "system", message: "" })]);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: each case spoils another field of the document
type Doc = any;

describe("the validation refuses what Harbor's reader refuses", () => {
  const { record, events } = loopTrial();
  const valid = () =>
    JSON.parse(JSON.stringify(atifTrajectory({ record, events, instruction: "x", kgateVersion: "0" })));

  it.each([
    [
      "a step id out of order",
      (d: Doc) => (d.steps[1].step_id = 5),
      /steps\[1\]\.step_id: expected 2, got 5/,
    ],
    [
      "a result naming no call of its step",
      (d: Doc) => (d.steps[1].observation.results[0].source_call_id = "nope"),
      /source_call_id nope/,
    ],
    [
      "metrics on a user step",
      (d: Doc) => (d.steps[0].metrics = { prompt_tokens: 1 }),
      /steps\[0\]\.metrics: only on agent steps/,
    ],
    [
      "a field ATIF does not have",
      (d: Doc) => (d.steps[0].reward = 1),
      /must NOT have additional properties/,
    ],
    ["an unknown schema version", (d: Doc) => (d.schema_version = "ATIF-v9"), /schema_version/],
    ["a source that is none of the three", (d: Doc) => (d.steps[0].source = "tool"), /source/],
    ["no steps", (d: Doc) => (d.steps = []), /at least one step/],
    ["a step without a message", (d: Doc) => delete d.steps[2].message, /message: required/],
    ["a timestamp that is no date", (d: Doc) => (d.steps[0].timestamp = "yesterday"), /not ISO 8601/],
    ["a repeated tool_call_id", (d: Doc) => (d.steps[1].tool_calls[1].tool_call_id = "t1"), /repeated/],
  ])("%s", (_name, spoil, message) => {
    const doc = valid();
    expect(atifProblems(doc)).toEqual([]);
    spoil(doc);
    expect(atifProblems(doc).join("\n")).toMatch(message);
  });
});

describe("kgate export trajectories --format atif", () => {
  it("writes one file per record; a missing trajectory or a bad line is named and exits 1", async () => {
    const paths = tempProject();
    const dir = path.join(paths.runs, "r1");
    mkdirSync(path.join(dir, "trials", "a"), { recursive: true });
    mkdirSync(path.join(paths.tasks, "demo"), { recursive: true });
    writeFileSync(path.join(paths.tasks, "demo", "instruction.md"), "Changed since.\n");
    const { record, events } = loopTrial();
    const good = { ...record, trajectory: "trials/a/trajectory.jsonl" };
    const lost = { ...record, trialId: "lost.0", trajectory: "trials/b/trajectory.jsonl" };
    const escaping = { ...record, trialId: "escape.0", trajectory: "../../../etc/passwd" };
    writeFileSync(
      path.join(dir, "trials.jsonl"),
      `${[good, lost, escaping].map((r) => JSON.stringify(r)).join("\n")}\n{"not":"a record"}\n`,
    );
    writeFileSync(
      path.join(dir, good.trajectory),
      `${events.map((e) => JSON.stringify(e)).join("\n")}\n{torn`,
    );
    const result = await kgateInProcess([
      "--root",
      paths.root,
      "export",
      "trajectories",
      "r1",
      "--format",
      "atif",
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split("\n")).toEqual([
      // Two model turns; the instruction changed since the run, so it is no step.
      "bom.with-A.frontier.0  runs/r1/atif/bom.with-A.frontier.0.json  2 step(s)",
      "lost.0  runs/r1/atif/lost.0.json  1 step(s)",
      "escape.0  runs/r1/atif/escape.0.json  1 step(s)",
    ]);
    expect(result.stderr).toMatch(/trials\.jsonl: line 4: /);
    expect(result.stderr).toMatch(/trajectory\.jsonl: line 9: /);
    expect(result.stderr).toContain("lost.0: trajectory trials/b/trajectory.jsonl is missing");
    expect(result.stderr).toContain("escape.0: trajectory path ../../../etc/passwd is outside the run");
    const written = JSON.parse(readFileSync(path.join(dir, "atif", "bom.with-A.frontier.0.json"), "utf8"));
    expect(atifProblems(written)).toEqual([]);
    // The task's instruction changed since the run (its digest is not the record's): not shown as the instruction.
    expect(written.steps[0].source).toBe("agent");
    expect(AtifTrajectory.parse(written).extra!.kgate).toMatchObject({
      trajectory_problems: [expect.stringMatching(/line 9/)],
    });
  });

  it("refuses a format it does not write, and a folder that is no run", async () => {
    const paths = tempProject();
    const wrong = await kgateInProcess([
      "--root",
      paths.root,
      "export",
      "trajectories",
      "r1",
      "--format",
      "sharegpt",
    ]);
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      expect.stringContaining('--format: expected atif, got "sharegpt"'),
    ]);
    const none = await kgateInProcess([
      "--root",
      paths.root,
      "export",
      "trajectories",
      "nothing",
      "--format",
      "atif",
    ]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no trials in runs\/nothing/);
    expect(exportRunTrajectories).toBeTypeOf("function");
  });
});
