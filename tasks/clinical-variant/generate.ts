// Generates tasks/clinical-variant/environment/ (genes.csv, variants.csv): synthetic genes and variants
// from a fixed seed, and refuses data on which a convention would not bite.
// Run: npx tsx tasks/clinical-variant/generate.ts [out_dir] [--check]
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import verifier, {
  type ClinicalVariantConventions,
  classifyAll,
  GENE_TABLE,
  GENERIC_GENE,
} from "../../verifiers/clinical-variant.ts";

const SEED = 132;
const ENVIRONMENT = path.join(import.meta.dirname, "environment");
const VARIANTS_PER_GENE = 7;

/** Public facts of the synthetic genes: chromosome, transcript and protein length. */
const GENES: ReadonlyArray<[gene: string, chromosome: string, length: number]> = [
  ["ARVN1", "3", 612],
  ["BELT3", "7", 530],
  ["CORX2", "11", 455],
  ["DALM4", "2", 301],
  ["EPHQ1", "17", 720],
  ["FURN7", "15", 388],
  ["GALV5", "12", 402],
  ["HESP2", "19", 276],
];
const AMINO = ["Arg", "Gly", "Leu", "Ser", "Pro", "Thr", "Val", "Asp", "Glu", "Lys", "Ala", "Cys", "Tyr"];
const CONSEQUENCES = [
  ...Array(6).fill("missense"),
  "nonsense",
  "nonsense",
  "frameshift",
  "frameshift",
  "splice_donor",
  "splice_acceptor",
  "start_lost",
  "inframe_deletion",
  "inframe_deletion",
  "synonymous",
  "synonymous",
] as string[];

function rng(seed: number) {
  const generator = xoroshiro128plus(seed);
  const int = (lo: number, hi: number) => uniformInt(generator, lo, hi);
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  /** true with probability `percent` / 100 */
  const chance = (percent: number) => int(1, 100) <= percent;
  return { int, pick, chance };
}
type Rng = ReturnType<typeof rng>;

/** Every value whose written form could read as a constant of the standard: no frequency or score equals one. */
const THRESHOLDS = [
  ...Object.values(GENE_TABLE).flatMap((g) => [g.bs1, g.ba1]),
  GENERIC_GENE.bs1,
  GENERIC_GENE.ba1,
  0.00005,
  0.95,
  0.8,
  0.75,
  0.7,
  0.3,
  0.2,
];
const AVOID = new Set(THRESHOLDS.flatMap((t) => [t, t * 100, 1 - t].map((v) => Number(v.toPrecision(6)))));

/** A population allele frequency from one of five bands of the gene's own cut-offs, written as sequencing reports do. */
function alleleFrequency(r: Rng, gene: string): string {
  const { bs1, ba1 } = GENE_TABLE[gene]!;
  for (;;) {
    const band = r.int(1, 20);
    let af: number;
    if (band <= 5) return "0";
    if (band <= 9)
      af = r.int(1, 49) / 1_000_000; // at or below the rarity cut-off
    else if (band <= 13)
      af = r.int(60, Math.round(bs1 * 1_000_000) - 5) / 1_000_000; // rare, below BS1
    else if (band <= 17) af = r.int(Math.round(bs1 * 100_000) + 1, Math.round(ba1 * 100_000) - 1) / 100_000;
    else af = r.int(Math.round(ba1 * 10_000) + 1, 480) / 10_000; // above BA1, mostly below 5%
    const written = Number(af.toPrecision(2));
    if (!AVOID.has(written) && written > 0) return String(written);
  }
}

function insilico(r: Rng): string {
  for (;;) {
    const score = r.int(3, 99) / 100 + r.int(0, 9) / 1000;
    const written = Number(score.toFixed(3));
    if (!AVOID.has(written) && !AVOID.has(Number(written.toFixed(2)))) return written.toFixed(3);
  }
}

function hgvs(r: Rng, consequence: string, codon: number): [string, string] {
  const aa = r.pick(AMINO);
  const c = 3 * codon;
  switch (consequence) {
    case "missense":
      return [`c.${c - 1}G>A`, `p.(${aa}${codon}${r.pick(AMINO.filter((a) => a !== aa))})`];
    case "nonsense":
      return [`c.${c - 2}C>T`, `p.(${aa}${codon}Ter)`];
    case "frameshift":
      return [`c.${c}del`, `p.(${aa}${codon}fs)`];
    case "splice_donor":
      return [`c.${c}+1G>A`, "p.?"];
    case "splice_acceptor":
      return [`c.${c + 1}-2A>G`, "p.?"];
    case "start_lost":
      return [r.pick(["c.1A>G", "c.2T>C", "c.3G>A"]), "p.(Met1?)"];
    case "inframe_deletion":
      return [`c.${c - 2}_${c}del`, `p.(${aa}${codon}del)`];
    default:
      return [`c.${c}C>T`, `p.(${aa}${codon}=)`];
  }
}

export function generate(seed = SEED): Record<string, string> {
  const r = rng(seed);
  const genes = ["gene,chromosome,transcript,protein_length"];
  const variants = ["variant_id,gene,hgvs_c,hgvs_p,consequence,codon,pop_af,insilico,de_novo,functional"];
  let n = 0;
  for (const [gene, chromosome, length] of GENES) {
    genes.push(`${gene},${chromosome},TX-${gene}-201,${length}`);
    const hotspot = GENE_TABLE[gene]!.hotspot;
    for (let i = 0; i < VARIANTS_PER_GENE; i++) {
      const consequence = r.pick(CONSEQUENCES);
      let codon = r.int(2, length);
      if (consequence === "start_lost") codon = 1;
      else if (consequence === "missense" && hotspot && r.chance(45)) codon = r.int(hotspot[0], hotspot[1]);
      const [c, p] = hgvs(r, consequence, codon);
      const scored = consequence === "missense" || consequence === "inframe_deletion";
      const deNovo = r.chance(60) ? "no" : r.chance(55) ? "confirmed" : "assumed";
      const functional = r.chance(60) ? "none" : r.chance(60) ? "damaging" : "normal";
      n++;
      variants.push(
        [
          `CV-${(1000 + n * 13).toString()}`,
          gene,
          c,
          p,
          consequence,
          codon,
          alleleFrequency(r, gene),
          scored ? insilico(r) : "NA",
          deNovo,
          functional,
        ].join(","),
      );
    }
  }
  return { "genes.csv": `${genes.join("\n")}\n`, "variants.csv": `${variants.join("\n")}\n` };
}

/** The properties the task relies on; throws with the reason when the data lacks one. */
export function checkGate(files: Record<string, string>): void {
  const { conventions } = verifier;
  const solve = (c: ClinicalVariantConventions) => classifyAll(files, c);
  const artefact = solve(conventions.artefact);
  for (const cls of [
    "pathogenic",
    "likely_pathogenic",
    "uncertain_significance",
    "likely_benign",
    "benign",
  ]) {
    const count = artefact.filter((v) => v.classification === cls).length;
    if (count < 3) throw new Error(`only ${count} variant(s) are ${cls}`);
  }
  const differing = (c: ClinicalVariantConventions) =>
    solve(c).filter((v, i) => v.classification !== artefact[i]!.classification).length;
  const apart = differing(conventions.default);
  if (apart < artefact.length / 3)
    throw new Error(`the default classifies only ${apart} variants differently`);
  const perturbed = differing(conventions.variants.perturbed!);
  if (perturbed < 4)
    throw new Error(`the perturbed variant classifies only ${perturbed} variants differently`);
  // Every convention alone at its default changes at least two classifications (not just points).
  for (const key of Object.keys(conventions.artefact) as Array<keyof ClinicalVariantConventions>) {
    const changed = differing({ ...conventions.artefact, [key]: conventions.default[key] });
    if (changed < 2) throw new Error(`${key} at its default changes only ${changed} classification(s)`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const files = generate();
  checkGate(files);
  // An out_dir argument writes there instead (`kgate check` reruns the generator into a fresh folder).
  const outDir = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? ENVIRONMENT;
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(outDir, name);
    if (process.argv.includes("--check")) {
      if (readFileSync(file, "utf8") !== content)
        throw new Error(`${name} differs from the generator's output`);
    } else writeFileSync(file, content);
  }
  process.stdout.write(
    `clinical-variant: ${Object.keys(files).join(", ")} ${process.argv.includes("--check") ? "match" : "written"}\n`,
  );
}
