import { describe, expect, it } from "vitest";
import { loadTask } from "../src/task/index.ts";
import verifier from "../verifiers/contract-clause.ts";
import { describeGeneratorAndOracle, libraryTask } from "./support/library-task.ts";

const ID = "contract-clause";
const OUTPUT = "output/contract_risk.csv";
const KEY = "contract_id";
const library = libraryTask(ID, OUTPUT, KEY);
const { paths, task, environmentOf } = library;
const { artefact, default: defaults, variants } = verifier.conventions;
const committed = environmentOf(task);
const solved = (c: typeof artefact) => verifier.solve(committed, c)[OUTPUT];

describe("contract-clause reference solver", () => {
  const lexicon =
    "term,weight\nunlimited liability,6\nindemnify,4\npenalty,3\nexclusive,3\nmutual,-2\ncapped at,-3\n";
  const contracts = [
    "contract_id,counterparty,governing_law,effective_date",
    "K1,Alpha,DE,2025-01-01",
    "K2,Beta,Brazil,2025-01-01",
    "K3,Gamma,UK,2025-01-01",
  ].join("\n");
  const clause = (contract_id: string, clause_no: number, type: string, text: string) =>
    JSON.stringify({ contract_id, clause_no, type, text });
  const env = {
    "risk_lexicon.csv": lexicon,
    "contracts.csv": `${contracts}\n`,
    "clauses.jsonl": [
      clause(
        "K1",
        1,
        "liability",
        "Unlimited liability applies. A penalty applies. Another penalty applies.",
      ),
      clause(
        "K1",
        2,
        "indemnity",
        "The Supplier shall indemnify. Duties are mutual. The sum is capped at cost.",
      ),
      clause(
        "K2",
        1,
        "liability",
        "Unlimited liability applies. A penalty applies. The Vendor shall indemnify.",
      ),
      clause("K2", 2, "general", "A penalty applies. Delivery is made exclusively by road."),
      clause(
        "K3",
        1,
        "liability",
        "Unlimited liability is accepted. The Supplier shall indemnify. A penalty applies.",
      ),
      clause("K3", 2, "indemnity", "The Supplier shall indemnify. Unlimited liability follows."),
    ].join("\n"),
  };

  it("scores a hand-checked case under the artefact's conventions", () => {
    // K1 (DE = Delaware, x0.95): clause 1 = 6 + 3 (penalty counts once) = 9, under the liability cap 12
    //   -> 9 x 0.95 = 8.55; clause 2 = 4 - 2 - 3 = -1 -> floor 0. Total 8.55 < 20 -> low; max 8.55 < 10.
    // K2 (Brazil is unlisted, x1.30): clause 1 = 6 + 3 + 4 = 13 -> cap 12 -> 15.60; clause 2 = 3
    //   ("exclusively" is not "exclusive"), general cap 4 -> 3.90. Total 19.50 -> low, max 15.60 >= 10 -> medium.
    // K3 (UK = England and Wales, x1.15): clause 1 = 13 -> cap 12 -> 13.80; clause 2 = 4 + 6 = 10,
    //   indemnity cap 10 -> 11.50. Total 25.30 -> medium, max 13.80 >= 10 -> high.
    expect(verifier.solve(env, artefact)[OUTPUT]).toEqual([
      { contract_id: "K1", risk_score: 8.55, max_clause_score: 8.55, risk_tier: "low" },
      { contract_id: "K2", risk_score: 19.5, max_clause_score: 15.6, risk_tier: "medium" },
      { contract_id: "K3", risk_score: 25.3, max_clause_score: 13.8, risk_tier: "high" },
    ]);
  });

  it("scores the same case under the default conventions (every hit, no floor, caps or multipliers)", () => {
    // K1: clause 1 = 6 + 3 + 3 = 12; clause 2 = -1. Total 11 < 15 -> low.
    // K2: 13 and 3 -> 16, 15 <= 16 < 30 -> medium. K3: 13 and 10 -> 23 -> medium; no escalation.
    expect(verifier.solve(env, defaults)[OUTPUT]).toEqual([
      { contract_id: "K1", risk_score: 11, max_clause_score: 12, risk_tier: "low" },
      { contract_id: "K2", risk_score: 16, max_clause_score: 13, risk_tier: "medium" },
      { contract_id: "K3", risk_score: 23, max_clause_score: 13, risk_tier: "medium" },
    ]);
  });

  it("names a missing environment file", () => {
    expect(() => verifier.solve({ "contracts.csv": contracts }, artefact)).toThrow(
      /risk_lexicon\.csv is missing/,
    );
  });
});

describe("contract-clause gate on the committed data", () => {
  it("is a valid task without warnings", () => {
    const result = loadTask(paths, ID);
    expect(result.ok && result.warnings).toEqual([]);
  });

  it("gives a different answer under the default and under the perturbed conventions", () => {
    const a = JSON.stringify(solved(artefact));
    const d = JSON.stringify(solved(defaults));
    const p = JSON.stringify(solved(variants.perturbed!));
    expect(new Set([a, d, p]).size).toBe(3);
  });

  it("declares the compressed variant with the artefact's conventions in about a quarter of the bytes", () => {
    expect(variants.compressed).toEqual(artefact);
    const compressed = task.variants.find((v) => v.name === "compressed")!;
    expect(compressed.bytes.length * 3).toBeLessThan(task.artefact.bytes.length);
    expect(compressed.bytes.toString("utf8").split("\n")[0]).toBe(
      `<!-- kgate-canary: ${task.artefact.canary} -->`,
    );
  });

  it("exercises every private convention: changing any one of them changes the answer", () => {
    const rows = solved(artefact);
    const changes: Partial<typeof artefact>[] = [
      { maxHitsPerTerm: null },
      { floorAtZero: false },
      { caps: null },
      { aliases: { ...artefact.aliases, de: "germany" } },
      { multipliers: { ...artefact.multipliers, "england-wales": 1.1 } },
      { otherMultiplier: 1.25 },
      { tiers: { medium: 25, high: 40 } },
      { escalateAt: null },
    ];
    for (const change of changes) {
      expect(solved({ ...artefact, ...change }), JSON.stringify(change)).not.toEqual(rows);
    }
  });
});

describeGeneratorAndOracle(library, { artefact: solved(artefact), perturbed: solved(variants.perturbed!) });
