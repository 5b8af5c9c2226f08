// `kgate probe recite --max-cost` and `kgate probe recite|canary --estimate`, in process through the
// command functions, the real SDK clients against the loopback model server (scripted personas, not
// a real model). A trial reserves its worst case before it starts and settles at its recorded cost;
// a refused trial has no record; a resume with more finishes. The estimate starts nothing (every
// unit is refused while it is priced) and prices from earlier records of the same probe, task and
// configuration, else at the bound.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CommandContext } from "../src/commands/context.ts";
import { canaryCommand, reciteCommand } from "../src/commands/probe.ts";
import type { ProjectPaths } from "../src/project.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { CORRECT, personaScript, probeProject } from "./support/probe-project.ts";
import { writeJson } from "./support/project.ts";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(personaScript({ knower: { states: { rate: 0.12 }, answers: CORRECT } }));
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  delete process.env.KGATE_PROBE_KEY;
});

/** Task "demo" and configuration knower at $1 per million tokens sent, $1000 per million generated, 1000 out per call. */
function project(): ProjectPaths {
  const { paths, agents } = probeProject(server, { knower: "anthropic" });
  const knower = {
    ...agents.knower,
    pricing: { inputPerMTok: 1, outputPerMTok: 1000 },
    maxOutputTokens: 1000,
  };
  writeJson(paths.config, { agents: { knower } });
  return paths;
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

const OPTIONS = { agent: ["knower"], n: "2", concurrency: 1, json: true };
// A recitation trial as the persona reports it: turn 1 500 in / 40 out, turn 2 800 in / 60 out:
// 1300 x 1e-6 + 100 x 1e-3 = $0.1013.
const TRIAL = 0.1013;

describe("kgate probe --max-cost", () => {
  it("refuses the trial whose worst case would cross the ceiling, and a resume with more finishes", async () => {
    const paths = project();
    process.env.KGATE_PROBE_KEY = "sk-test";
    const before = server.requests.length;
    // A trial's worst case generates 1000 on each of its 2 turns: 2000 x 1e-3 = $2, plus what it
    // sends at 1e-6 a token (the inline task, well under 100k tokens): trial 0: 0 + 0 + worst <= 2.1;
    // trial 1: 0.1013 + worst > 2.1, refused.
    const first = capture(paths);
    expect(await reciteCommand(first, "demo", { ...OPTIONS, runId: "p1", maxCost: "2.1" })).toBe(1);
    expect(server.requests.length - before).toBe(2); // one trial, two turns
    expect(readTrialRecords(path.join(paths.runs, "p1")).records.length).toBe(1);
    const report = JSON.parse(readFileSync(path.join(paths.runs, "p1", "recite.json"), "utf8"));
    expect(report.budget.spentUsd).toBeCloseTo(TRIAL, 10);
    expect(report.budget.reservedUsd).toBe(0);
    expect(report.budget.refused).toBe(1);
    expect(report.reports[0].trials.length).toBe(1); // no result for the trial not run
    expect(first.err()).toContain(
      "cost ceiling $2.1: spent $0.1013, reserved $0; 1 probe trial(s) not started",
    );
    expect(first.err()).toContain("--resume p1 --max-cost <more>");

    const second = capture(paths);
    expect(await reciteCommand(second, "demo", { ...OPTIONS, resume: "p1", maxCost: "10" })).toBe(0);
    const resumed = JSON.parse(readFileSync(path.join(paths.runs, "p1", "recite.json"), "utf8"));
    expect(resumed.budget.spentUsd).toBeCloseTo(2 * TRIAL, 10); // the first session's trial counted too
    expect(resumed.budget.refused).toBe(0);
    expect(resumed.reports[0].trials.length).toBe(2);
  });
});

describe("kgate probe --estimate", () => {
  it("prices recite from the earlier run's records and canary at its bound, starting nothing", async () => {
    const paths = project();
    process.env.KGATE_PROBE_KEY = "sk-test";
    expect(await reciteCommand(capture(paths), "demo", { ...OPTIONS, runId: "old" })).toBe(0);
    delete process.env.KGATE_PROBE_KEY; // an estimate needs no key: it calls no model
    const calls = server.requests.length;
    const ctx = capture(paths);
    expect(await reciteCommand(ctx, "demo", { ...OPTIONS, n: "3", runId: "new", estimate: true })).toBe(0);
    const e = JSON.parse(ctx.out());
    // 3 trials at the 2 earlier ones' $0.1013 each: 3 x 0.1013 = $0.3039
    expect(e.groups).toHaveLength(1);
    expect(e.groups[0]).toMatchObject({
      group: "recite demo  knower",
      units: 3,
      source: "records",
      records: 2,
    });
    expect(e.groups[0].costUsd.expected).toBeCloseTo(3 * TRIAL, 10);
    expect(e.groups[0].tokens).toEqual({ input: 1300, output: 100, cacheRead: 0, cacheWrite: 0 });

    // canary has no earlier run: 2 trials of two one-turn conversations, 1000 out each: 2 x 2000 x
    // 1e-3 = $4, plus what they send.
    const canary = capture(paths);
    expect(await canaryCommand(canary, "demo", { ...OPTIONS, estimate: true, json: false })).toBe(0);
    expect(canary.out()).toMatch(
      /canary demo {2}knower: 2 trial\(s\), \d+ in \/ 2000 out \/ 0 cache tokens per trial, \$4\.\d+ \(\$0-\$4\.\d+\) {2}\[upper bound/,
    );
    expect(server.requests.length).toBe(calls);
    expect(readdirSync(paths.runs).sort()).toEqual(["old"]); // no run directory
  });
});
