// `kgate triage --max-cost` and `--estimate` on an item pool, in process through the command's run
// function, the real Anthropic SDK client against the loopback model server (scripted replies, not
// a real model). Phase-0 units and plans each reserve their worst case before they start and settle
// at their recorded cost; a refused unit has no record (so no plan is asked on an incomplete phase
// 0); a resume with more finishes. The estimate prices each unit and the plans from earlier records
// of the same configuration, else at their bound, and runs nothing.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../src/commands/context.ts";
import { run as triage } from "../src/commands/triage.ts";
import type { ProjectPaths } from "../src/project.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";

const KEY_ENV = "KGATE_TRIAGE_COST_TEST_KEY";
let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
  delete process.env[KEY_ENV];
});

type Message = { role: string; content: string | Array<{ text?: string }> };
const textOf = (m: Message) =>
  typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join("");
const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/** Plans (their prompt lists "## Tasks"): 400 in / 120 out, a plan of unit a; items: 50 in / 300 out. */
function script(request: SeenRequest) {
  const first = textOf((request.body.messages as Message[])[0]!);
  if (first.includes("## Tasks"))
    return { text: JSON.stringify({ plan: [{ id: "a", tokens: 350 }] }), usage: { input: 400, output: 120 } };
  const answer = first.startsWith("Compute 17") ? "42" : first.startsWith("Compute 9") ? "72" : "Paris";
  return { text: `ANSWER: ${answer}`, usage: { input: 50, output: 300 } };
}

const ITEMS = [
  { id: "a", prompt: "Compute 17 + 25.", answer: 42, checker: "number" },
  { id: "b", prompt: "Compute 9 * 8.", answer: 72, checker: "number" },
];

/** items/p.jsonl and one priced agent: $1 per million tokens sent, $1000 per million generated. */
function project(url: string, items = ITEMS): ProjectPaths {
  const p = tempProject();
  mkdirSync(path.join(p.root, "items"));
  writeFileSync(path.join(p.root, "items", "p.jsonl"), `${items.map((i) => JSON.stringify(i)).join("\n")}\n`);
  writeJson(p.config, {
    agents: {
      planner: {
        harness: "builtin",
        provider: "anthropic",
        model: "scripted-planner",
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
  agent: "planner",
  alpha: ["1"],
  framing: ["neutral"],
  unitCap: "1000",
  planTokens: "500",
  concurrency: 1,
  json: true,
};

// A unit as recorded: 50 x 1e-6 + 300 x 1e-3 = $0.30005; the plan: 400 x 1e-6 + 120 x 1e-3 = $0.1204.
const UNIT = 0.30005;
const PLAN = 0.1204;

describe("kgate triage --max-cost", () => {
  it("refuses the unit whose worst case would cross the ceiling, asks no plan, and a resume with more finishes", async () => {
    server = await startModelServer(script);
    const paths = project(server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    // A unit's worst case generates the unit cap, 1000 x 1e-3 = $1, and sends its prompt (below).
    // Unit a: 0 + 0 + ~$1.0001 <= 1.1, starts; unit b: 0.30005 + ~$1.0001 > 1.1, refused.
    const first = capture(paths);
    expect(await triage(first, "p", { ...OPTIONS, runId: "t1", maxCost: "1.1" })).toBe(1);
    expect(server.requests.length).toBe(1);
    const summary = JSON.parse(first.out());
    expect(summary.phase0.units).toBe(1);
    expect(summary.plans).toEqual([]); // phase 0 is incomplete: no plan, no result for b
    expect(summary.budget.spentUsd).toBeCloseTo(UNIT, 10);
    expect(summary.budget.reservedUsd).toBe(0);
    expect(summary.budget.refused).toBe(1);
    // the worst case sent: the prompt's UTF-8 bytes + 16 for its framing; b's prompt is 2 bytes
    // shorter than a's ("Compute 9 * 8." is 14 bytes, "Compute 17 + 25." 16), the rest alike
    const sentA = bytes(textOf((server.requests[0]!.body.messages as Message[])[0]!));
    const worstB = 1 + (sentA - 2 + 16) * 1e-6;
    expect(first.err()).toContain(
      `phase 0 b: not started: cost ceiling $1.1: spent $0.3001 + reserved $0 + this unit or plan's worst case $${Math.round(worstB * 1e4) / 1e4} would cross it`,
    );
    const report = readFileSync(path.join(paths.runs, "t1", "report.md"), "utf8");
    expect(report).toContain("cost ceiling $1.1: spent $0.3001, reserved $0; 1 unit or plan(s) not started");
    expect(first.err()).toContain("kgate triage --agent planner --resume t1 --max-cost <more>");

    // Resume with $10: b runs, then the one plan: 2 x 0.30005 + 0.1204 = $0.7205.
    const second = capture(paths);
    expect(await triage(second, undefined, { ...OPTIONS, resume: "t1", maxCost: "10" })).toBe(0);
    const resumed = JSON.parse(second.out());
    expect(resumed.phase0.units).toBe(2);
    expect(resumed.plans.length).toBe(1);
    expect(resumed.plans[0].costUsd).toBeCloseTo(PLAN, 10);
    expect(resumed.budget.spentUsd).toBeCloseTo(2 * UNIT + PLAN, 10);
    expect(resumed.budget.refused).toBe(0);
    expect(server.requests.length).toBe(3);
  });

  it("refuses --max-cost with --live (the live phase is not bounded)", async () => {
    server = await startModelServer(script);
    const paths = project(server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    await expect(
      triage(capture(paths), "p", { ...OPTIONS, runId: "t2", live: true, maxCost: "5" }),
    ).rejects.toThrow(/--max-cost bounds phase 0 and the plans; it cannot bound --live or --resolve runs/);
    expect(server.requests.length).toBe(0);
  });
});

describe("kgate triage --estimate", () => {
  it("prices units and plans from earlier records of the same configuration, the rest at their bound", async () => {
    server = await startModelServer(script);
    const paths = project(server.anthropicUrl);
    process.env[KEY_ENV] = "sk-test";
    expect(await triage(capture(paths), "p", { ...OPTIONS, runId: "old" })).toBe(0);
    const calls = server.requests.length; // 2 units + 1 plan
    expect(calls).toBe(3);
    const ctx = capture(paths);
    expect(await triage(ctx, "p", { ...OPTIONS, alpha: ["0.5,1"], runId: "new", estimate: true })).toBe(0);
    expect(server.requests.length).toBe(calls); // no model call
    expect(readdirSync(paths.runs)).toEqual(["old"]); // no run directory
    const e = JSON.parse(ctx.out());
    const [a, b, plans] = e.groups;
    expect(a).toMatchObject({ group: "phase 0  a", units: 1, source: "records", records: 1 });
    expect(a.costUsd.expected).toBeCloseTo(UNIT, 10);
    expect(a.tokens).toEqual({ input: 50, output: 300, cacheRead: 0, cacheWrite: 0 });
    expect(b).toMatchObject({ group: "phase 0  b", source: "records", records: 1 });
    // 2 alphas x 1 framing x 1 ratio = 2 plans, each like the earlier one over the same units: 2 x 0.1204
    expect(plans).toMatchObject({ group: "plans", units: 2, source: "records", records: 1 });
    expect(plans.costUsd.expected).toBeCloseTo(2 * PLAN, 10);
    expect(e.totalUsd.expected).toBeCloseTo(2 * UNIT + 2 * PLAN, 10);
    expect(e.uncertain).toBe(0);

    // A pool with a third unit: c has no record (its bound: 1000 generated = $1, plus its prompt
    // sent); the plans are over other units now, so they too are at their bound: two calls of 500
    // generated each, 2 x 500 x 1e-3 = $1 a plan, plus what they send.
    const bigger = [...ITEMS, { id: "c", prompt: "Name the capital of France.", answer: "Paris" }];
    writeFileSync(
      path.join(paths.root, "items", "p.jsonl"),
      `${bigger.map((i) => JSON.stringify(i)).join("\n")}\n`,
    );
    const text = capture(paths);
    expect(await triage(text, "p", { ...OPTIONS, json: false, runId: "new2", estimate: true })).toBe(0);
    expect(text.out()).toContain("phase 0  a: 1 run(s), 50 in / 300 out / 0 cache tokens per run, $0.3001");
    expect(text.out()).toMatch(
      /phase 0 {2}c: 1 run\(s\), \d+ in \/ 1000 out \/ 0 cache tokens per run, \$1\.\d+ \(\$0-\$1\.\d+\) {2}\[upper bound/,
    );
    expect(text.out()).toMatch(/plans: 1 run\(s\), \d+ in \/ 1000 out .*\$1\.\d+ .*\[upper bound/);
    expect(text.out()).toContain("total: ");
    expect(readdirSync(paths.runs)).toEqual(["old"]);
  });
});
