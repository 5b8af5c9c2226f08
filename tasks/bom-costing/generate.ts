// Generates tasks/bom-costing/environment/ (parts.csv, bom.csv, prices.csv) from a fixed seed, and
// refuses data on which the gate would not bite. Run: npx tsx tasks/bom-costing/generate.ts [out_dir] [--check]
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import verifier, { rawRollUp } from "../../verifiers/bom-costing.ts";

const SEED = 20260412;
const ENVIRONMENT = path.join(import.meta.dirname, "environment");

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
  const sample = <T>(items: readonly T[], n: number): T[] => {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length > 0) out.push(pool.splice(int(0, pool.length - 1), 1)[0]!);
    return out;
  };
  return { int, pick, sample };
}

const LEAF_KINDS = [
  "Hex bolt M6x20",
  "Hex nut M6",
  "Flat washer 6 mm",
  "Ball bearing 6204",
  "O-ring 32x2",
  "Spring pin 4x16",
  "Cable tie 200 mm",
  "Steel bracket",
  "Aluminium plate 3 mm",
  "PCB controller rev C",
  "Ribbon cable 10-way",
  "Rubber foot",
  "Shaft 12 mm ground",
  "Timing belt HTD-5M",
  "Pulley 20T",
  "Stepper motor NEMA17",
  "Limit switch",
  "Terminal block 4-way",
  "Fuse 2 A",
  "Gasket sheet",
  "Label set",
  "Cover moulding",
];
const ASSEMBLY_KINDS = [
  "Drive unit",
  "Sensor head",
  "Frame module",
  "Control box",
  "Feeder",
  "Gantry",
  "Housing",
];
/** Prices that would read like the specification's constants are avoided (the leak audit's job is easier). */
const AVOID = new Set(["0.12", "1.12", "12.00", "0.15", "1.15", "15.00", "1.00"]);

export function generate(): Record<string, string> {
  const r = prng(SEED);
  const leaves = Array.from({ length: 64 }, (_, i) => `P-${1001 + i}`);
  const descriptions = new Map<string, string>();
  for (const leaf of leaves) descriptions.set(leaf, `${r.pick(LEAF_KINDS)}`);

  const unpriced = new Set(r.sample(leaves, 6));
  const prices = new Map<string, string>();
  for (const leaf of leaves) {
    if (unpriced.has(leaf)) continue;
    let price = "";
    do price = (r.int(15, 9500) / 100).toFixed(2);
    while (AVOID.has(price));
    prices.set(leaf, price);
  }
  const priced = leaves.filter((l) => !unpriced.has(l));

  let nextAssembly = 2001;
  const bom: Array<[string, string, number]> = [];
  const newAssembly = () => {
    const id = `A-${nextAssembly++}`;
    descriptions.set(id, r.pick(ASSEMBLY_KINDS));
    return id;
  };
  const addLeaves = (parent: string, n: number, withUnpriced?: string) => {
    const chosen = r.sample(priced, n);
    if (withUnpriced) chosen.splice(r.int(0, chosen.length), 0, withUnpriced);
    for (const leaf of chosen) bom.push([parent, leaf, r.int(1, 4)]);
  };

  // Four levels of assemblies; each unpriced leaf sits beside priced siblings in a level-1 assembly.
  const unpricedList = [...unpriced];
  const level1 = Array.from({ length: 12 }, (_, i) => {
    const a = newAssembly();
    addLeaves(a, r.int(2, 4), unpricedList[i]);
    return a;
  });
  const levels = [level1];
  for (const [count, below] of [
    [9, 2],
    [6, 2],
    [3, 2],
  ] as const) {
    const lower = levels.at(-1)!;
    const level = Array.from({ length: count }, () => {
      const a = newAssembly();
      for (const child of r.sample(lower, r.int(1, below))) bom.push([a, child, r.int(1, 3)]);
      addLeaves(a, r.int(1, 3));
      return a;
    });
    levels.push(level);
  }
  // A circular reference: a level-2 assembly is made to contain a level-3 assembly that contains it.
  const level3 = levels[2]!;
  const host = level3.find((a) => bom.some(([p, c]) => p === a && levels[1]!.includes(c)))!;
  const inner = bom.find(([p, c]) => p === host && levels[1]!.includes(c))![1];
  bom.push([inner, host, 1]);
  // A rework loop of three assemblies that nothing else contains.
  const loop = [newAssembly(), newAssembly(), newAssembly()];
  loop.forEach((a, i) => {
    addLeaves(a, 2);
    bom.push([a, loop[(i + 1) % loop.length]!, 1]);
  });

  bom.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  const parts = [...descriptions.keys()].sort();
  return {
    "parts.csv": `part,description,kind\n${parts
      .map((p) => `${p},${descriptions.get(p)},${p.startsWith("A-") ? "assembly" : "bought"}`)
      .join("\n")}\n`,
    "bom.csv": `parent,child,quantity\n${bom.map((e) => e.join(",")).join("\n")}\n`,
    "prices.csv": `part,unit_price\n${[...prices].map(([p, v]) => `${p},${v}`).join("\n")}\n`,
  };
}

/** The properties the task relies on; throws with the reason when the data lacks one. */
export function checkGate(files: Record<string, string>): void {
  const { conventions } = verifier;
  const sets = { artefact: conventions.artefact, default: conventions.default, ...conventions.variants };
  const rows = Object.fromEntries(
    Object.entries(sets).map(([name, c]) => [name, rawRollUp(files["bom.csv"]!, files["prices.csv"]!, c)]),
  );
  for (const [name, list] of Object.entries(rows)) {
    for (const { assembly, raw } of list) {
      if (raw === null) continue;
      const cents = raw * 100;
      if (Math.abs(cents - Math.floor(cents) - 0.5) < 1e-6) {
        throw new Error(`${assembly} under ${name}: ${raw} lies on a rounding tie`);
      }
    }
  }
  const artefact = rows.artefact!;
  const cycles = artefact.filter((a) => a.raw === null).length;
  if (cycles < 4 || cycles > artefact.length / 4) throw new Error(`${cycles} cycle-affected assemblies`);
  for (const name of ["default", "perturbed"]) {
    const same = rows[name]!.filter(
      (row, i) => row.raw !== null && Math.abs(row.raw - artefact[i]!.raw!) < 0.005,
    );
    if (same.length > 0) throw new Error(`${name} costs ${same[0]!.assembly} like the artefact`);
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
    `bom-costing: ${Object.keys(files).join(", ")} ${process.argv.includes("--check") ? "match" : "written"}\n`,
  );
}
