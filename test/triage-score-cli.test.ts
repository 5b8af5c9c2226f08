// `kgate triage score` through the real argv parser (in process, with absolute paths and --root; the
// bin once for the worked example and for --help):
// the seed's worked example as JSON with exactly the keys, dropped plan entries reported on
// stderr, and clear errors naming file and line/field.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject, writeJson } from "./support/project.ts";

function files(phase0: string, plan: string): { dir: string; phase0: string; plan: string } {
  const dir = tempProject().root;
  writeFileSync(path.join(dir, "phase0.jsonl"), phase0);
  writeFileSync(path.join(dir, "plan.json"), plan);
  return { dir, phase0: path.join(dir, "phase0.jsonl"), plan: path.join(dir, "plan.json") };
}

const WORKED_PHASE0 = [
  '{"id": "1", "cost": 500, "correct": true}',
  '{"id": "2", "cost": 2500, "correct": false}',
  '{"id": "3", "cost": 1000, "correct": true}',
  "",
].join("\n");
const WORKED_PLAN = '{"plan": [{"id": "1", "tokens": 400}, {"id": "2", "tokens": 1600}]}';

describe("kgate triage score", () => {
  it("scores the seed's worked example: V_oracle 2, V_random 1, V_U 1, V_E 0, eta_U 0, eta_E -1", async () => {
    const f = files(WORKED_PHASE0, WORKED_PLAN);
    const r = kgate(
      ["triage", "score", "--phase0", f.phase0, "--plan", f.plan, "--budget", "2000", "--json"],
      {
        cwd: f.dir,
      },
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    // exactly the keys the issue lists; values worked out by hand in test/triage-scores.test.ts
    expect(Object.keys(json).sort()).toEqual(
      ["compliant", "etaE", "etaU", "regretE", "regretU", "vE", "vOracle", "vRandom", "vU"].sort(),
    );
    expect(json).toEqual({
      vOracle: 2,
      vRandom: 1,
      vU: 1,
      vE: 0,
      etaU: 0,
      etaE: -1,
      regretU: 0.5,
      regretE: 1,
      compliant: true,
    });
    const text = await kgateInProcess([
      "--root",
      f.dir,
      "triage",
      "score",
      "--phase0",
      f.phase0,
      "--plan",
      f.plan,
      "--budget",
      "2000",
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("regime E: V 0   eta -1.0000   regret 1.0000");
  });

  it("gives eta null in JSON when the denominator is 0 (alpha = 1: B = 4000 fits every order)", async () => {
    const f = files(WORKED_PHASE0, WORKED_PLAN);
    const r = await kgateInProcess([
      "triage",
      "score",
      "--phase0",
      f.phase0,
      "--plan",
      f.plan,
      "--budget",
      "4000",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    // every order solves units 1 and 3 (500 + 2500 + 1000 = 4000 <= 4000): V_random = V_oracle = 2
    expect(json.vRandom).toBe(2);
    expect(json.etaU).toBeNull();
    expect(json.etaE).toBeNull();
  });

  it("drops unknown and duplicate ids and bad allocations, says so, and flags an over-budget plan", async () => {
    const plan = JSON.stringify({
      plan: [
        { id: "3", tokens: 1500 },
        { id: "nope", tokens: 10 },
        { id: "3", tokens: 100 },
        { id: "1", tokens: 2.5 },
        { id: "1", tokens: 900 },
      ],
    });
    const f = files(WORKED_PHASE0, plan);
    const r = await kgateInProcess([
      "triage",
      "score",
      "--phase0",
      f.phase0,
      "--plan",
      f.plan,
      "--budget",
      "2000",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('plan[1] ("nope"): unknown id, dropped');
    expect(r.stderr).toContain('plan[2] ("3"): duplicate id, dropped');
    expect(r.stderr).toContain('plan[3] ("1"): non-positive or non-integer tokens, dropped');
    const json = JSON.parse(r.stdout);
    // kept: 3 (1500), 1 (900): 2400 > 2000 -> non-compliant.
    // U: 1000 (+1), 1500 (+1) -> 2. E: 3 gets 1500 >= 1000 (+1), left 500; 1 gets min(900, 500) = 500 >= 500 (+1) -> 2.
    expect(json.compliant).toBe(false);
    expect(json.vU).toBe(2);
    expect(json.vE).toBe(2);
  });

  it("exits 2 naming the file and line of a bad phase-0 line, and the plan file when it is garbage", async () => {
    const bad = files(
      '{"id": "1", "cost": 500, "correct": true}\n{"id": "2", "cost": -3, "correct": false}\n',
      WORKED_PLAN,
    );
    const r = await kgateInProcess([
      "triage",
      "score",
      "--phase0",
      bad.phase0,
      "--plan",
      bad.plan,
      "--budget",
      "2000",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad.phase0}:2 (cost)`);
    const garbage = files(WORKED_PHASE0, "I would start with the easy ones.");
    const g = await kgateInProcess([
      "triage",
      "score",
      "--phase0",
      garbage.phase0,
      "--plan",
      garbage.plan,
      "--budget",
      "2000",
    ]);
    expect(g.code).toBe(2);
    expect(g.stderr).toContain(`${garbage.plan}: no JSON object in the reply`);
    const budget = await kgateInProcess([
      "triage",
      "score",
      "--phase0",
      garbage.phase0,
      "--plan",
      garbage.plan,
      "--budget",
      "-1",
    ]);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain("--budget must be a non-negative integer");
  });

  it("has --help", async () => {
    const r = kgate(["triage", "score", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--phase0 <file>");
  });
});

describe("kgate triage score re-scores a run with the run's own sampler (issue 30, item 4)", () => {
  // 10 units: 10! orders is over the exact limit of 9 units, so the baseline is sampled.
  const PHASE0 = [300, 900, 200, 700, 400, 1000, 600, 800, 500, 250]
    .map((cost, i) => JSON.stringify({ id: `u${i}`, cost, correct: i % 3 !== 1 }))
    .join("\n");
  const PLAN = JSON.stringify({
    plan: [
      { id: "u2", tokens: 300 },
      { id: "u9", tokens: 300 },
    ],
  });

  /** A run folder runs/<id>/ holding triage.json (seed, permutations) and phase0.jsonl. */
  function runFolder(root: string, id: string, seed: number, permutations: number): string {
    const dir = path.join(root, "runs", id);
    mkdirSync(dir, { recursive: true });
    writeJson(path.join(dir, "triage.json"), {
      runId: id,
      pool: { name: "p", file: "items/p.jsonl", digest: "0".repeat(64) },
      configuration: { name: "c", digest: "1".repeat(64) },
      model: "m",
      alphas: [0.5],
      framings: ["neutral"],
      ratios: [0],
      seed,
      unitCap: 100,
      planTokens: 100,
      permutations,
      phase2: "simulated",
      resolve: false,
      kgateVersion: "0",
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    writeFileSync(path.join(dir, "phase0.jsonl"), PHASE0);
    return path.join(dir, "phase0.jsonl");
  }

  const score = async (root: string, phase0: string, ...extra: string[]) => {
    const plan = path.join(root, "plan.json");
    writeFileSync(plan, PLAN);
    const r = await kgateInProcess([
      "--root",
      root,
      "triage",
      "score",
      "--phase0",
      phase0,
      "--plan",
      plan,
      "--budget",
      "2500",
      "--json",
      ...extra,
    ]);
    expect(r.code).toBe(0);
    return { vRandom: JSON.parse(r.stdout).vRandom as number, stderr: r.stderr };
  };

  it("reads the run's seed from its triage.json; --seed overrides it; without a run, seed 0", async () => {
    const root = tempProject().root;
    const phase0 = runFolder(root, "seeded", 5, 1000);
    const own = await score(root, phase0);
    expect(own.stderr).toContain(
      `V_random: sampled, 1000 permutations, seed 5 (${path.join("runs", "seeded", "triage.json")})`,
    );
    const five = await score(root, phase0, "--seed", "5");
    expect(five.stderr).toContain("seed 5 (--seed)");
    expect(five.vRandom).toBe(own.vRandom);
    const zero = await score(root, phase0, "--seed", "0");
    expect(zero.vRandom).not.toBe(own.vRandom);
    // The same phase-0 file outside a run: seed 0 and 1,000 permutations, the defaults.
    const loose = path.join(root, "loose.jsonl");
    copyFileSync(phase0, loose);
    const defaults = await score(root, loose);
    expect(defaults.stderr).toContain("sampled, 1000 permutations, seed 0 (the default)");
    expect(defaults.vRandom).toBe(zero.vRandom);
  });

  it("uses the run's number of permutations", async () => {
    const root = tempProject().root;
    const r = await score(root, runFolder(root, "few", 5, 200));
    expect(r.stderr).toContain("sampled, 200 permutations, seed 5");
  });

  it("names the file of an unreadable triage.json, exit 2", async () => {
    const root = tempProject().root;
    const phase0 = runFolder(root, "broken", 5, 1000);
    writeFileSync(path.join(root, "runs", "broken", "triage.json"), '{"seed": "five"}');
    const plan = path.join(root, "plan.json");
    writeFileSync(plan, PLAN);
    const r = await kgateInProcess([
      "--root",
      root,
      "triage",
      "score",
      "--phase0",
      phase0,
      "--plan",
      plan,
      "--budget",
      "2500",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(path.join(root, "runs", "broken", "triage.json"));
  });

  it("says the baseline is exact for the worked example (3 units: all 6 orders)", async () => {
    const f = files(WORKED_PHASE0, WORKED_PLAN);
    const r = await kgateInProcess([
      "--root",
      f.dir,
      "triage",
      "score",
      "--phase0",
      f.phase0,
      "--plan",
      f.plan,
      "--budget",
      "2000",
    ]);
    expect(r.stdout).toContain("V_oracle 2   V_random 1.0000 (exact, all 6 orders)");
  });
});
