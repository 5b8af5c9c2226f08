// Verifier for legal-clause: clause risk scores and contract bands as a pure function of the
// environment and the scoring conventions, judged by a weighted rubric (one criterion per part).
import {
  type Criterion,
  defineVerifier,
  type EnvironmentFiles,
  environmentRows,
  numbersMatch,
  type Rubric,
} from "kgate/verify";

type Severity = "critical" | "high" | "medium" | "low";
export const BANDS = ["low", "moderate", "high", "severe"] as const;

export interface ClauseConventions {
  /** Points a keyword of each severity scores. */
  severityPoints: Record<Severity, number>;
  /** Weight of the 1st, 2nd, ... occurrence of one keyword in a clause (later ones count 0); null: every occurrence counts 1. */
  repeatWeights: number[] | null;
  /** Multiplier of a contract's jurisdiction (tenths only, so that scores stay on the hundredths). */
  multipliers: { byJurisdiction: Record<string, number>; other: number };
  /** Highest score of a clause of each category; null: no caps. */
  caps: Record<string, number> | null;
  /** Whether a cap limits the score after or before the jurisdiction multiplier. */
  capOrder: "after-multiplier" | "before-multiplier";
  /** Only the highest-scoring clause of each category counts towards a contract's total. */
  categoryMax: boolean;
  /** Totals from which a contract is moderate, high and severe. */
  bands: [moderate: number, high: number, severe: number];
}

const artefact: ClauseConventions = {
  severityPoints: { critical: 8, high: 5, medium: 3, low: 1 },
  repeatWeights: [1, 0.5, 0.5],
  multipliers: {
    byJurisdiction: {
      "New York": 1,
      Delaware: 0.9,
      "England and Wales": 1.2,
      Ireland: 1.1,
      Netherlands: 1.1,
      Singapore: 0.8,
      Ontario: 1,
    },
    other: 1.3,
  },
  caps: {
    liability: 16,
    indemnity: 12,
    data_protection: 10,
    ip: 9,
    non_compete: 9,
    termination: 7,
    confidentiality: 6,
    payment: 6,
    general: 4,
  },
  capOrder: "after-multiplier",
  categoryMax: true,
  bands: [12, 25, 40],
};

/** What a reviewer assumes without the desk's rules: linear points, every hit, no adjustment, even bands. */
const defaults: ClauseConventions = {
  severityPoints: { critical: 4, high: 3, medium: 2, low: 1 },
  repeatWeights: null,
  multipliers: { byJurisdiction: {}, other: 1 },
  caps: null,
  capOrder: "before-multiplier",
  categoryMax: false,
  bands: [10, 20, 30],
};

/** Plausible but wrong: high keywords at 6 points, caps before the multiplier, severe from 35. */
const perturbed: ClauseConventions = {
  ...artefact,
  severityPoints: { ...artefact.severityPoints, high: 6 },
  capOrder: "before-multiplier",
  bands: [12, 25, 35],
};

export interface ClauseRow {
  clause_id: string;
  keyword_score: number;
  score: number;
  capped: boolean;
}
export interface ContractRow {
  contract_id: string;
  multiplier: number;
  total: number;
  band: (typeof BANDS)[number];
}
export interface RiskReport {
  clauses: ClauseRow[];
  contracts: ContractRow[];
}

/** Occurrences of `keyword` in `text` as a whole word or phrase, case-insensitive. */
export function occurrences(keyword: string, text: string): number {
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return (text.match(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, "gi")) ?? []).length;
}

/** A clause's keyword score in halves (an integer): points x the weight of each occurrence. */
export function keywordHalves(c: ClauseConventions, keywords: Map<string, Severity>, text: string): number {
  let halves = 0;
  for (const [keyword, severity] of keywords) {
    const n = occurrences(keyword, text);
    const weights = c.repeatWeights ?? Array.from({ length: n }, () => 1);
    for (let i = 0; i < n; i++) halves += Math.round(2 * c.severityPoints[severity] * (weights[i] ?? 0));
  }
  return halves;
}

/** Score and capped flag of one clause in hundredths, from its keyword score in halves and the multiplier in tenths. */
export function clauseScore(
  c: ClauseConventions,
  halves: number,
  tenths: number,
  category: string,
): { hundredths: number; capped: boolean } {
  const cap = c.caps?.[category];
  if (c.caps && cap === undefined) throw new Error(`no cap for the clause category "${category}"`);
  const uncapped = halves * tenths * 5; // (halves / 2) x (tenths / 10) x 100
  if (cap === undefined) return { hundredths: uncapped, capped: false };
  if (c.capOrder === "after-multiplier")
    return { hundredths: Math.min(uncapped, cap * 100), capped: uncapped > cap * 100 };
  return { hundredths: Math.min(halves, 2 * cap) * tenths * 5, capped: halves > 2 * cap };
}

/** The band of a total: one step up for every threshold it reaches. */
function bandOf(c: ClauseConventions, hundredths: number): ContractRow["band"] {
  return BANDS[c.bands.filter((threshold) => hundredths >= threshold * 100).length]!;
}

function solve(env: EnvironmentFiles, c: ClauseConventions) {
  const keywords = new Map(
    environmentRows(env, "keywords.csv").map((r, i) => {
      if (!["critical", "high", "medium", "low"].includes(r.severity!))
        throw new Error(`keywords.csv: line ${i + 2}: unknown severity "${r.severity}"`);
      return [r.keyword!.toLowerCase(), r.severity as Severity];
    }),
  );
  const contracts = environmentRows(env, "contracts.csv").map((r) => {
    const multiplier = c.multipliers.byJurisdiction[r.jurisdiction!] ?? c.multipliers.other;
    return { id: r.contract_id!, tenths: Math.round(multiplier * 10), byCategory: new Map<string, number>() };
  });
  const byId = new Map(contracts.map((k) => [k.id, k]));
  const clauses = environmentRows(env, "clauses.csv").map((r, i): ClauseRow => {
    const contract = byId.get(r.contract_id!);
    if (!contract) throw new Error(`clauses.csv: line ${i + 2}: unknown contract "${r.contract_id}"`);
    const halves = keywordHalves(c, keywords, r.text!);
    const { hundredths, capped } = clauseScore(c, halves, contract.tenths, r.category!);
    const seen = contract.byCategory.get(r.category!) ?? 0;
    contract.byCategory.set(r.category!, c.categoryMax ? Math.max(seen, hundredths) : seen + hundredths);
    return { clause_id: r.clause_id!, keyword_score: halves / 2, score: hundredths / 100, capped };
  });
  const report: RiskReport = {
    clauses,
    contracts: contracts.map((k) => {
      const total = [...k.byCategory.values()].reduce((sum, v) => sum + v, 0);
      return { contract_id: k.id, multiplier: k.tenths / 10, total: total / 100, band: bandOf(c, total) };
    }),
  };
  return { "output/clause_risk.json": report };
}

const TOLERANCE = { abs: 1e-4, rel: 1e-12 };

/**
 * A criterion on one field of one list of the report: every expected entry present with that field
 * equal (numbers at 1e-4), no entry the reference lacks; the detail names the first difference.
 */
function field<L extends "clauses" | "contracts">(
  name: string,
  weight: number,
  list: L,
  key: keyof RiskReport[L][number] & string,
  column: keyof RiskReport[L][number] & string,
): Criterion<RiskReport, RiskReport> {
  return {
    name,
    weight,
    check(actual, expected) {
      const rows = (report: RiskReport) => report[list] as unknown as Array<Record<string, unknown>>;
      const got = new Map(rows(actual).map((r) => [r[key], r[column]]));
      const problems: string[] = [];
      for (const want of rows(expected)) {
        const value = got.get(want[key]);
        const same =
          typeof value === "number" && typeof want[column] === "number"
            ? numbersMatch(value, want[column], TOLERANCE)
            : value === want[column];
        if (!same) problems.push(`${want[key]}: expected ${want[column]}, got ${value ?? "nothing"}`);
        got.delete(want[key]);
      }
      problems.push(...[...got.keys()].map((k) => `${k}: not in the reference`));
      const n = rows(expected).length;
      if (problems.length === 0) return { passed: true, detail: `${column} of all ${n} ${list} match` };
      return {
        passed: false,
        detail: `${column}: ${problems.length} of ${n} ${list} differ; first: ${problems[0]}`,
      };
    },
  };
}

const rubric: Rubric<RiskReport, RiskReport> = {
  judgesAlone: true,
  criteria: [
    field("keyword scores", 3, "clauses", "clause_id", "keyword_score"),
    field("caps applied", 2, "clauses", "clause_id", "capped"),
    field("clause scores", 3, "clauses", "clause_id", "score"),
    field("jurisdiction multipliers", 2, "contracts", "contract_id", "multiplier"),
    field("contract totals", 2, "contracts", "contract_id", "total"),
    field("risk bands", 1, "contracts", "contract_id", "band"),
  ],
};

export default defineVerifier<ClauseConventions>({
  conventions: { artefact, default: defaults, variants: { perturbed, compressed: artefact } },
  solve,
  rubric: { "output/clause_risk.json": rubric },
});
