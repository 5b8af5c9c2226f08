// Generates tasks/paper-index/environment/ (papers.csv, citations.csv) from a fixed seed, and refuses
// data on which the normalisation gate would not bite. Run: npx tsx tasks/paper-index/generate.ts [out_dir] [--check]
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import verifier, { centrality } from "../../verifiers/paper-index.ts";

const SEED = 7310;
const ENVIRONMENT = path.join(import.meta.dirname, "environment");
/** Sizes of the weakly connected components: a large field, smaller ones, and a few loners. */
const COMPONENTS = [27, 17, 9, 4, 2, 1];

/** mulberry32: a small, well-known seeded PRNG, so the data never depends on Math.random. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const shuffle = <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  return { int, pick, shuffle };
}

const METHODS = [
  "Sparse",
  "Robust",
  "Scalable",
  "Incremental",
  "Probabilistic",
  "Learned",
  "Adaptive",
  "Federated",
];
const TOPICS = [
  "graph embeddings",
  "index structures",
  "entity resolution",
  "query planning",
  "topic models",
];
const USES = ["digital libraries", "patent search", "clinical notes", "code search", "news archives"];

export function generate(): Record<string, string> {
  const r = prng(SEED);
  const total = COMPONENTS.reduce((a, b) => a + b, 0);
  const ids = r.shuffle(Array.from({ length: total }, (_, i) => `W${(1000 + i * 7).toString()}`));
  const papers: Array<{ id: string; year: number; title: string }> = [];
  const citations: Array<[string, string]> = [];
  let next = 0;
  for (const size of COMPONENTS) {
    const members = ids.slice(next, next + size);
    next += size;
    // Members in publication order; each later paper cites one to three earlier ones of its field.
    members.forEach((id, i) => {
      papers.push({ id, year: 2008 + Math.floor((i * 16) / Math.max(size, 1)), title: "" });
      if (i === 0) return;
      const cited = new Set<string>();
      const n = Math.min(i, r.int(1, 3));
      while (cited.size < n) cited.add(members[r.int(Math.max(0, i - 8), i - 1)]!);
      for (const c of cited) citations.push([id, c]);
    });
  }
  for (const p of papers) p.title = `${r.pick(METHODS)} ${r.pick(TOPICS)} for ${r.pick(USES)}`;
  papers.sort((a, b) => (a.id < b.id ? -1 : 1));
  citations.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  return {
    "papers.csv": `paper_id,year,title\n${papers.map((p) => `${p.id},${p.year},${p.title}`).join("\n")}\n`,
    "citations.csv": `citing,cited\n${citations.map((c) => c.join(",")).join("\n")}\n`,
  };
}

/** The properties the task relies on; throws with the reason when the data lacks one. */
export function checkGate(files: Record<string, string>): void {
  const { conventions } = verifier;
  const answer = (c: typeof conventions.artefact) =>
    centrality(files["papers.csv"]!, files["citations.csv"]!, c).papers;
  const artefact = answer(conventions.artefact);
  const central = artefact.filter((p) => p.betweenness > 0);
  if (central.length < artefact.length / 3)
    throw new Error(`only ${central.length} papers lie on shortest paths`);
  for (const [name, c] of [
    ["default", conventions.default],
    ["perturbed", conventions.variants.perturbed!],
  ] as const) {
    const other = answer(c);
    const apart = artefact.filter((p, i) => Math.abs(p.betweenness - other[i]!.betweenness) > 1e-3).length;
    if (apart < central.length * 0.8)
      throw new Error(`${name} differs from the artefact on only ${apart} papers`);
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
    `paper-index: ${Object.keys(files).join(", ")} ${process.argv.includes("--check") ? "match" : "written"}\n`,
  );
}
