// Verifier for contract-clause: clause risk scoring as a pure function of the environment and the conventions.
import { defineVerifier, type EnvironmentFiles, environmentRows, environmentText } from "kgate/verify";

export interface ClauseConventions {
  /** How often one term counts in one clause; null counts every occurrence. */
  maxHitsPerTerm: number | null;
  /** A clause whose raw score is negative counts as 0. */
  floorAtZero: boolean;
  /** Cap of the raw score per clause type, applied before the multiplier; null means no caps. */
  caps: Record<string, number> | null;
  /** Multiplier per canonical jurisdiction (at most two decimals). */
  multipliers: Record<string, number>;
  /** Governing-law spelling (lower case) -> canonical jurisdiction. */
  aliases: Record<string, string>;
  /** Multiplier of a governing law not in the table. */
  otherMultiplier: number;
  /** Lowest contract score of the medium and of the high tier. */
  tiers: { medium: number; high: number };
  /** A contract whose highest clause score reaches this is raised one tier; null never escalates. */
  escalateAt: number | null;
}

const TIERS = ["low", "medium", "high"] as const;

const JURISDICTIONS = {
  "new-york": { multiplier: 1.0, spellings: ["new york", "ny", "state of new york"] },
  delaware: { multiplier: 0.95, spellings: ["delaware", "de", "state of delaware"] },
  california: { multiplier: 1.1, spellings: ["california", "ca", "state of california"] },
  "england-wales": {
    multiplier: 1.15,
    spellings: ["england and wales", "england & wales", "english law", "uk"],
  },
  germany: { multiplier: 1.2, spellings: ["germany", "federal republic of germany", "deu"] },
  singapore: { multiplier: 0.9, spellings: ["singapore", "sg", "republic of singapore"] },
  ontario: { multiplier: 1.05, spellings: ["ontario", "province of ontario"] },
};

const CAPS: Record<string, number> = {
  liability: 12,
  indemnity: 10,
  ip: 8,
  exclusivity: 8,
  termination: 6,
  payment: 5,
  confidentiality: 5,
  general: 4,
};

const artefact: ClauseConventions = {
  maxHitsPerTerm: 1,
  floorAtZero: true,
  caps: CAPS,
  multipliers: Object.fromEntries(Object.entries(JURISDICTIONS).map(([k, v]) => [k, v.multiplier])),
  aliases: Object.fromEntries(
    Object.entries(JURISDICTIONS).flatMap(([k, v]) => v.spellings.map((s) => [s, k])),
  ),
  otherMultiplier: 1.3,
  tiers: { medium: 20, high: 40 },
  escalateAt: 10,
};

/** What a competent reviewer assumes without the specification: the bare lexicon, summed, unadjusted. */
const defaults: ClauseConventions = {
  maxHitsPerTerm: null,
  floorAtZero: false,
  caps: null,
  multipliers: {},
  aliases: {},
  otherMultiplier: 1,
  tiers: { medium: 15, high: 30 },
  escalateAt: null,
};

/** Plausible but wrong: terms count up to twice, higher liability/indemnity caps, 1.20 for other laws. */
const perturbed: ClauseConventions = {
  ...artefact,
  maxHitsPerTerm: 2,
  caps: { ...CAPS, liability: 15, indemnity: 12 },
  otherMultiplier: 1.2,
};

interface Clause {
  contract_id: string;
  clause_no: number;
  type: string;
  text: string;
}

function clauses(env: EnvironmentFiles): Clause[] {
  return environmentText(env, "clauses.jsonl")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Clause);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Occurrences of a term as a whole phrase (not inside a longer word), case-insensitively. */
function countTerm(text: string, term: string): number {
  const pattern = new RegExp(`(?<![a-z0-9])${escapeRegExp(term.toLowerCase())}(?![a-z0-9])`, "g");
  return text.toLowerCase().match(pattern)?.length ?? 0;
}

/** Multiplier in hundredths for a governing-law string as written in contracts.csv. */
function multiplierHundredths(c: ClauseConventions, law: string): number {
  const canonical = c.aliases[law.trim().toLowerCase()];
  const m = canonical === undefined ? c.otherMultiplier : (c.multipliers[canonical] ?? c.otherMultiplier);
  return Math.round(m * 100);
}

function solve(env: EnvironmentFiles, c: ClauseConventions) {
  const lexicon = environmentRows(env, "risk_lexicon.csv").map((r) => ({
    term: r.term!,
    weight: Number(r.weight),
  }));
  const byContract = new Map<string, Clause[]>();
  for (const clause of clauses(env)) {
    byContract.set(clause.contract_id, [...(byContract.get(clause.contract_id) ?? []), clause]);
  }
  const rows = environmentRows(env, "contracts.csv").map((contract) => {
    const mult = multiplierHundredths(c, contract.governing_law!);
    const scores: number[] = [];
    for (const clause of byContract.get(contract.contract_id!) ?? []) {
      let raw = 0;
      for (const { term, weight } of lexicon) {
        const hits = countTerm(clause.text, term);
        raw += weight * (c.maxHitsPerTerm === null ? hits : Math.min(hits, c.maxHitsPerTerm));
      }
      if (c.floorAtZero) raw = Math.max(raw, 0);
      const cap = c.caps?.[clause.type];
      if (cap !== undefined) raw = Math.min(raw, cap);
      scores.push(raw * mult); // hundredths, exact
    }
    const total = scores.reduce((a, b) => a + b, 0);
    const max = scores.length === 0 ? 0 : Math.max(...scores);
    let tier = total >= c.tiers.high * 100 ? 2 : total >= c.tiers.medium * 100 ? 1 : 0;
    if (c.escalateAt !== null && max >= c.escalateAt * 100) tier = Math.min(tier + 1, 2);
    return {
      contract_id: contract.contract_id!,
      risk_score: total / 100,
      max_clause_score: max / 100,
      risk_tier: TIERS[tier]!,
    };
  });
  return { "output/contract_risk.csv": rows };
}

export default defineVerifier<ClauseConventions>({
  conventions: { artefact, default: defaults, variants: { perturbed, compressed: artefact } },
  solve,
});
