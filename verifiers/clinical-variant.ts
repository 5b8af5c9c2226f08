// Verifier for clinical-variant: the evidence points and the class of every (synthetic) sequence variant,
// as a pure function of genes.csv, variants.csv and the curation conventions (gene reference table,
// evidence points, class thresholds and the conflict tie-break).
import { defineVerifier, type EnvironmentFiles, environmentRows } from "kgate/verify";

export type Mechanism = "LoF" | "GoF";

/** One row of the gene reference table. */
export interface GeneEntry {
  /** Disease mechanism: loss of function (null variants are evidence) or gain of function (they are not). */
  mechanism: Mechanism;
  /** BS1: a population allele frequency above this is strong benign evidence. */
  bs1: number;
  /** BA1: a population allele frequency above this is stand-alone benign evidence. */
  ba1: number;
  /** PM1: missense variants in these codons (inclusive) are moderate pathogenic evidence. */
  hotspot: readonly [number, number] | null;
}

export interface ClinicalVariantConventions {
  /** The gene reference table; null: no gene knowledge (every gene as GENERIC_GENE). */
  genes: Readonly<Record<string, GeneEntry>> | null;
  /** Points of a null variant: nonsense, frameshift or canonical splice (`lof`) and start_lost in a LoF gene; any of them in a GoF gene. */
  nullVariant: { lof: number; startLost: number; gof: number };
  /** PM2: an allele frequency at or below `maxAf` (absent included) earns `points`. */
  rarity: { maxAf: number; points: number };
  /** In-silico score bands (missense and in-frame deletions): >= strong +2, >= supporting +1, <= benign -1. */
  insilico: { strong: number | null; supporting: number; benign: number };
  /** Points of a confirmed and of an assumed (unconfirmed parentage) de novo observation. */
  deNovo: { confirmed: number; assumed: number };
  /** Lowest total of pathogenic and likely pathogenic, highest total of likely benign and benign. */
  classes: { pathogenic: number; likelyPathogenic: number; likelyBenign: number; benign: number };
  /**
   * Tie-break of conflicting evidence: pathogenic points of at least `pathogenic` together with benign
   * points of at most `benign` (or BA1) make the variant uncertain whatever the total; null: the total
   * decides, and BA1 alone makes it benign.
   */
  conflict: { pathogenic: number; benign: number } | null;
}

export const OUTPUT = "output/classifications.csv";

/** What a curator without the lab's gene table assumes: every gene LoF, the textbook 1% / 5% cut-offs, no hotspot. */
export const GENERIC_GENE: GeneEntry = { mechanism: "LoF", bs1: 0.01, ba1: 0.05, hotspot: null };

export const CLASSES = [
  "pathogenic",
  "likely_pathogenic",
  "uncertain_significance",
  "likely_benign",
  "benign",
] as const;
export type VariantClass = (typeof CLASSES)[number];

const NULL_CONSEQUENCES = new Set([
  "nonsense",
  "frameshift",
  "splice_donor",
  "splice_acceptor",
  "start_lost",
]);
const SCORED_CONSEQUENCES = new Set(["missense", "inframe_deletion"]);
const CONSEQUENCES = new Set([...NULL_CONSEQUENCES, ...SCORED_CONSEQUENCES, "synonymous"]);

export interface Classification {
  variant_id: string;
  points: number;
  classification: VariantClass;
}

function number(value: string | undefined, where: string): number {
  const n = Number(value);
  if (value === undefined || value.trim() === "" || !Number.isFinite(n)) {
    throw new Error(`${where}: "${value ?? ""}" is not a number`);
  }
  return n;
}

export interface VariantRow {
  variant_id: string;
  gene: string;
  consequence: string;
  codon: string;
  pop_af: string;
  insilico: string;
  de_novo: string;
  functional: string;
}

/** The evidence points of one variant and whether BA1 applies. */
export function evidence(v: VariantRow, gene: GeneEntry, c: ClinicalVariantConventions, where: string) {
  const points: number[] = [];
  const af = number(v.pop_af, `${where}: pop_af`);
  const ba1 = af > gene.ba1;
  if (!ba1 && af > gene.bs1) points.push(-4);
  else if (!ba1 && af <= c.rarity.maxAf) points.push(c.rarity.points);
  if (NULL_CONSEQUENCES.has(v.consequence)) {
    const n = v.consequence === "start_lost" ? c.nullVariant.startLost : c.nullVariant.lof;
    points.push(gene.mechanism === "GoF" ? c.nullVariant.gof : n);
  }
  const codon = number(v.codon, `${where}: codon`);
  if (v.consequence === "missense" && gene.hotspot && codon >= gene.hotspot[0] && codon <= gene.hotspot[1]) {
    points.push(2);
  }
  if (SCORED_CONSEQUENCES.has(v.consequence)) {
    const s = number(v.insilico, `${where}: insilico`);
    if (c.insilico.strong !== null && s >= c.insilico.strong) points.push(2);
    else if (s >= c.insilico.supporting) points.push(1);
    else if (s <= c.insilico.benign) points.push(-1);
  }
  if (v.consequence === "synonymous") points.push(-1);
  if (v.de_novo === "confirmed") points.push(c.deNovo.confirmed);
  else if (v.de_novo === "assumed") points.push(c.deNovo.assumed);
  if (v.functional === "damaging") points.push(4);
  else if (v.functional === "normal") points.push(-4);
  return { points, ba1 };
}

/** The class of a variant from its evidence points, BA1 and the thresholds and tie-break. */
export function classify(
  points: readonly number[],
  ba1: boolean,
  c: ClinicalVariantConventions,
): VariantClass {
  const total = points.reduce((a, b) => a + b, 0);
  const pathogenic = points.filter((p) => p > 0).reduce((a, b) => a + b, 0);
  const benign = points.filter((p) => p < 0).reduce((a, b) => a + b, 0);
  if (c.conflict && pathogenic >= c.conflict.pathogenic && (ba1 || benign <= c.conflict.benign)) {
    return "uncertain_significance";
  }
  if (ba1) return "benign";
  if (total >= c.classes.pathogenic) return "pathogenic";
  if (total >= c.classes.likelyPathogenic) return "likely_pathogenic";
  if (total <= c.classes.benign) return "benign";
  if (total <= c.classes.likelyBenign) return "likely_benign";
  return "uncertain_significance";
}

export function classifyAll(files: EnvironmentFiles, c: ClinicalVariantConventions): Classification[] {
  const known = new Set(environmentRows(files, "genes.csv").map((g) => g.gene));
  return environmentRows(files, "variants.csv").map((row, i): Classification => {
    const where = `variants.csv: line ${i + 2}`;
    const v = row as unknown as VariantRow;
    if (!known.has(v.gene)) throw new Error(`${where}: gene "${v.gene}" is not in genes.csv`);
    if (!CONSEQUENCES.has(v.consequence)) throw new Error(`${where}: unknown consequence "${v.consequence}"`);
    const gene = c.genes === null ? GENERIC_GENE : c.genes[v.gene];
    if (!gene) throw new Error(`${where}: gene "${v.gene}" is not in the gene reference table`);
    const { points, ba1 } = evidence(v, gene, c, where);
    return {
      variant_id: v.variant_id,
      points: points.reduce((a, b) => a + b, 0),
      classification: classify(points, ba1, c),
    };
  });
}

/** The gene reference table of the curation standard (synthetic genes). */
export const GENE_TABLE: Readonly<Record<string, GeneEntry>> = {
  ARVN1: { mechanism: "LoF", bs1: 0.0008, ba1: 0.008, hotspot: null },
  BELT3: { mechanism: "GoF", bs1: 0.0002, ba1: 0.003, hotspot: [212, 248] },
  CORX2: { mechanism: "LoF", bs1: 0.0015, ba1: 0.015, hotspot: null },
  DALM4: { mechanism: "GoF", bs1: 0.0004, ba1: 0.006, hotspot: [55, 81] },
  EPHQ1: { mechanism: "LoF", bs1: 0.0003, ba1: 0.004, hotspot: [310, 342] },
  FURN7: { mechanism: "LoF", bs1: 0.0025, ba1: 0.025, hotspot: null },
  GALV5: { mechanism: "GoF", bs1: 0.0001, ba1: 0.0015, hotspot: [140, 176] },
  HESP2: { mechanism: "LoF", bs1: 0.0006, ba1: 0.009, hotspot: [88, 120] },
};

const artefact: ClinicalVariantConventions = {
  genes: GENE_TABLE,
  nullVariant: { lof: 8, startLost: 2, gof: 0 },
  rarity: { maxAf: 0.00005, points: 1 },
  insilico: { strong: 0.95, supporting: 0.8, benign: 0.2 },
  deNovo: { confirmed: 4, assumed: 1 },
  classes: { pathogenic: 10, likelyPathogenic: 7, likelyBenign: -2, benign: -7 },
  conflict: { pathogenic: 4, benign: -4 },
};

export default defineVerifier<ClinicalVariantConventions>({
  conventions: {
    artefact,
    // Without the standard: ACMG/AMP 2015 criteria on the points scale of Tavtigian et al., every null
    // variant very strong, textbook frequency cut-offs, PM2 only when absent, no gene hotspots.
    default: {
      genes: null,
      nullVariant: { lof: 8, startLost: 8, gof: 8 },
      rarity: { maxAf: 0, points: 2 },
      insilico: { strong: null, supporting: 0.7, benign: 0.3 },
      deNovo: { confirmed: 4, assumed: 2 },
      classes: { pathogenic: 10, likelyPathogenic: 6, likelyBenign: -1, benign: -7 },
      conflict: null,
    },
    variants: {
      perturbed: {
        ...artefact,
        nullVariant: { lof: 8, startLost: 4, gof: 0 },
        insilico: { strong: 0.95, supporting: 0.75, benign: 0.2 },
        classes: { pathogenic: 10, likelyPathogenic: 8, likelyBenign: -2, benign: -7 },
      },
      compressed: artefact,
    },
  },
  solve(files, c) {
    return { [OUTPUT]: classifyAll(files, c) };
  },
});
