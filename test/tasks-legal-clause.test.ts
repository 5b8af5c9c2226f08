// legal-clause: the reference solver on a hand-checked pair of contracts under the artefact's, the
// default and the perturbed conventions; the weighted rubric's reward and partial score on reports
// wrong in one part; the committed data and its gate; the generator and the Python oracle.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadTask } from "../src/task/index.ts";
import { verifyTrial } from "../src/verify/index.ts";
import verifier, { type RiskReport } from "../verifiers/legal-clause.ts";
import { libraryTask } from "./support/library-task.ts";
import { runOracleOnHost } from "./support/oracle-host.ts";

const ID = "legal-clause";
const OUTPUT = "output/clause_risk.json";
const library = libraryTask(ID, OUTPUT, "clause_id");
const { paths, task, environmentOf, tempDir } = library;
const { artefact, default: defaults, variants } = verifier.conventions;
const committed = environmentOf(task);
const solved = (c: typeof artefact, env = committed) => verifier.solve(env, c)[OUTPUT] as RiskReport;

const env = {
  "keywords.csv":
    "keyword,severity\nunlimited liability,critical\nindemnify,high\nauto-renew,medium\nsurvive,low\n",
  "contracts.csv":
    "contract_id,jurisdiction,signed_on\nK1,England and Wales,2025-01-01\nK2,Brazil,2025-01-02\n",
  "clauses.csv": [
    "contract_id,clause_id,category,text",
    "K1,K1-C1,liability,Unlimited liability applies. The Supplier shall indemnify. It shall indemnify again.",
    "K1,K1-C2,liability,Rights survive. Rights survive. Rights survive. Rights survive.",
    "K1,K1-C3,general,This will auto-renew.",
    'K2,K2-C1,payment,"Payments auto-renew and survive; the Supplier will indemnify."',
    "K2,K2-C2,termination,Orders auto-renew.",
  ].join("\n"),
};

describe("legal-clause reference solver", () => {
  it("scores a hand-checked case under the artefact's conventions", () => {
    // K1 (England and Wales, x 1.2):
    //   C1: unlimited liability 8 + indemnify 5 + its 2nd occurrence 2.5 = 15.5; x 1.2 = 18.6 > cap 16: 16, capped.
    //   C2: survive x 4 = 1 + 0.5 + 0.5 + 0 = 2; x 1.2 = 2.4.  C3: auto-renew 3; x 1.2 = 3.6 <= cap 4.
    //   Total: liability counts its highest clause only, 16, + general 3.6 = 19.6: moderate (12 to 24.99).
    // K2 (Brazil, any other: x 1.3):
    //   C1: 3 + 1 + 5 = 9; x 1.3 = 11.7 > cap 6 (payment): 6, capped.  C2: 3 x 1.3 = 3.9 <= cap 7.
    //   Total 6 + 3.9 = 9.9: low.
    expect(solved(artefact, env)).toEqual({
      clauses: [
        { clause_id: "K1-C1", keyword_score: 15.5, score: 16, capped: true },
        { clause_id: "K1-C2", keyword_score: 2, score: 2.4, capped: false },
        { clause_id: "K1-C3", keyword_score: 3, score: 3.6, capped: false },
        { clause_id: "K2-C1", keyword_score: 9, score: 6, capped: true },
        { clause_id: "K2-C2", keyword_score: 3, score: 3.9, capped: false },
      ],
      contracts: [
        { contract_id: "K1", multiplier: 1.2, total: 19.6, band: "moderate" },
        { contract_id: "K2", multiplier: 1.3, total: 9.9, band: "low" },
      ],
    });
  });

  it("scores the same case under the default conventions (4/3/2/1 points, every hit, no adjustment)", () => {
    // K1: C1 4 + 3 + 3 = 10; C2 1 x 4 = 4; C3 2; total 16 (every clause counts): moderate (10 to 19.99).
    // K2: C1 2 + 1 + 3 = 6; C2 2; total 8: low.
    expect(solved(defaults, env)).toEqual({
      clauses: [
        { clause_id: "K1-C1", keyword_score: 10, score: 10, capped: false },
        { clause_id: "K1-C2", keyword_score: 4, score: 4, capped: false },
        { clause_id: "K1-C3", keyword_score: 2, score: 2, capped: false },
        { clause_id: "K2-C1", keyword_score: 6, score: 6, capped: false },
        { clause_id: "K2-C2", keyword_score: 2, score: 2, capped: false },
      ],
      contracts: [
        { contract_id: "K1", multiplier: 1, total: 16, band: "moderate" },
        { contract_id: "K2", multiplier: 1, total: 8, band: "low" },
      ],
    });
  });

  it("scores the same case under the perturbed conventions (high 6, cap before the multiplier)", () => {
    // K1: C1 8 + 6 + 3 = 17 > cap 16: 16 x 1.2 = 19.2, capped; C2 2 x 1.2 = 2.4; C3 3 x 1.2 = 3.6.
    //   Total 19.2 + 3.6 = 22.8: moderate. K2: C1 3 + 1 + 6 = 10 > cap 6: 6 x 1.3 = 7.8, capped;
    //   C2 3 x 1.3 = 3.9; total 11.7: low.
    const report = solved(variants.perturbed!, env);
    expect(report.clauses.map((c) => [c.keyword_score, c.score, c.capped])).toEqual([
      [17, 19.2, true],
      [2, 2.4, false],
      [3, 3.6, false],
      [10, 7.8, true],
      [3, 3.9, false],
    ]);
    expect(report.contracts.map((c) => [c.total, c.band])).toEqual([
      [22.8, "moderate"],
      [11.7, "low"],
    ]);
  });

  it("names the line of an unknown severity", () => {
    const bad = { ...env, "keywords.csv": "keyword,severity\nindemnify,severe\n" };
    expect(() => solved(artefact, bad)).toThrow(/keywords\.csv: line 2: unknown severity "severe"/);
  });
});

/** The artefact's answer on the committed data with `edit` applied, verified as a trial's output. */
function verdictOf(edit: (report: RiskReport) => void) {
  const report = structuredClone(solved(artefact));
  edit(report);
  return verifyTrial(task, [
    { path: OUTPUT, status: "collected", bytes: Buffer.from(JSON.stringify(report)) },
  ]);
}

describe("legal-clause rubric (weights 3, 2, 3, 2, 2, 1: 13 in all)", () => {
  it("judges the report by its six criteria alone, each with its weight", async () => {
    const verdict = await verdictOf(() => {});
    expect(verdict).toMatchObject({ status: "pass", reward: 1, score: 1 });
    expect(verdict.criteria.map((c) => [c.name.replace(`${OUTPUT}: `, ""), c.weight, c.passed])).toEqual([
      ["keyword scores", 3, true],
      ["caps applied", 2, true],
      ["clause scores", 3, true],
      ["jurisdiction multipliers", 2, true],
      ["contract totals", 2, true],
      ["risk bands", 1, true],
    ]);
  });

  it("wrong bands only: reward 0 (the product), score 12/13 (the weighted mean)", async () => {
    const verdict = await verdictOf((r) => {
      for (const c of r.contracts) c.band = c.band === "low" ? "moderate" : "low";
    });
    // Every criterion passes but risk bands (weight 1): (3 + 2 + 3 + 2 + 2) / 13 = 12/13.
    expect(verdict.reward).toBe(0);
    expect(verdict.score).toBeCloseTo(12 / 13, 12);
    expect(verdict.criteria.filter((c) => !c.passed).map((c) => c.name)).toEqual([`${OUTPUT}: risk bands`]);
  });

  it("one multiplier and one keyword score wrong: score (2 + 3 + 2 + 1) / 13 = 8/13, details name them", async () => {
    const verdict = await verdictOf((r) => {
      r.contracts[0]!.multiplier += 0.1;
      r.clauses[0]!.keyword_score += 0.5;
    });
    // keyword scores (3) and jurisdiction multipliers (2) fail: (13 - 5) / 13 = 8/13.
    expect(verdict.score).toBeCloseTo(8 / 13, 12);
    const failed = verdict.criteria.filter((c) => !c.passed);
    expect(failed.map((c) => c.detail)).toEqual([
      expect.stringMatching(/^keyword_score: 1 of 106 clauses differ; first: LC-3100-C1: expected /),
      expect.stringMatching(/^multiplier: 1 of 20 contracts differ; first: LC-3100: expected 1\.3, got 1\.4/),
    ]);
  });
});

describe("legal-clause gate on the committed data", () => {
  it("is a valid task without warnings", () => {
    const result = loadTask(paths, ID);
    expect(result.ok && result.warnings).toEqual([]);
  });

  it("gives a different answer under the default and under the perturbed conventions", () => {
    const answers = [artefact, defaults, variants.perturbed!].map((c) => JSON.stringify(solved(c)));
    expect(new Set(answers).size).toBe(3);
  });

  it("has every band under the artefact's conventions, and capped and uncapped clauses", () => {
    const report = solved(artefact);
    expect(new Set(report.contracts.map((c) => c.band))).toEqual(
      new Set(["low", "moderate", "high", "severe"]),
    );
    expect(report.clauses.some((c) => c.capped) && report.clauses.some((c) => !c.capped)).toBe(true);
  });

  it("declares the compressed variant with the artefact's conventions in under a third of the bytes", () => {
    expect(variants.compressed).toEqual(artefact);
    const compressed = task.variants.find((v) => v.name === "compressed")!;
    expect(compressed.bytes.length * 3).toBeLessThan(task.artefact.bytes.length);
  });

  it("exercises every private convention: changing any one of them changes the answer", () => {
    const report = solved(artefact);
    const changes: Partial<typeof artefact>[] = [
      { severityPoints: { ...artefact.severityPoints, critical: 7 } },
      { repeatWeights: [1, 0.5] },
      { repeatWeights: [1, 0.5, 0.5, 0.5] },
      { repeatWeights: null },
      { multipliers: { ...artefact.multipliers, other: 1.2 } },
      {
        multipliers: {
          ...artefact.multipliers,
          byJurisdiction: { ...artefact.multipliers.byJurisdiction, Delaware: 1 },
        },
      },
      { caps: { ...artefact.caps!, general: 5 } },
      { capOrder: "before-multiplier" },
      { categoryMax: false },
      { bands: [12, 25, 45] },
    ];
    for (const change of changes) {
      expect(solved({ ...artefact, ...change }), JSON.stringify(change)).not.toEqual(report);
    }
  });
});

describe("legal-clause generator and oracle (Python, on the host)", () => {
  it("regenerates byte-identical environment files", () => {
    const out = tempDir();
    execFileSync("python3", [path.join(task.dir, "generate.py"), out]);
    expect(readdirSync(out).sort()).toEqual(task.environment.map((f) => f.path));
    for (const f of task.environment) {
      expect(readFileSync(path.join(out, f.path)).equals(readFileSync(f.absPath)), f.path).toBe(true);
    }
  });

  it("passes under +A and over the compressed variant", async () => {
    for (const condition of ["+A", "variant:compressed"] as const) {
      const run = runOracleOnHost(task, condition);
      expect(run.stderr).toBe("");
      expect((await verifyTrial(task, run.outputs)).status, condition).toBe("pass");
    }
  });

  it("placed over the perturbed variant, computes exactly the perturbed conventions' answer", async () => {
    const verdict = await verifyTrial(task, runOracleOnHost(task, "variant:perturbed").outputs);
    expect(verdict.attribution).toBe("perturbed-convention:perturbed");
    expect(verdict.agreement?.["perturbed-convention:perturbed"]).toBe(1);
    // The multipliers are the artefact's in the perturbed variant: that criterion alone passes.
    expect(verdict.criteria.filter((c) => c.passed).map((c) => c.name)).toEqual([
      `${OUTPUT}: jurisdiction multipliers`,
    ]);
  });

  it("stops without the specification (-A)", () => {
    const run = runOracleOnHost(task, "-A");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/is not present/);
  });
});
