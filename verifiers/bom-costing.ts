// Verifier for bom-costing: the cost roll-up of a multi-level bill of materials as a pure function of
// bom.csv, prices.csv and three costing conventions (overhead per level, missing prices, cycles).
import { defineVerifier, parseCsv, roundHalfAway } from "kgate/verify";

export interface BomConventions {
  /** Overhead added by every assembly on the cost of its components, so it compounds per level. */
  overheadRate: number;
  /** A leaf part without a price: costed at 0.00, or at the mean price of its priced leaf siblings. */
  missingPrice: "zero" | "sibling-mean";
  /** Reported for every assembly whose expansion reaches a circular reference. */
  cycleCost: number;
}

export const OUTPUT = "output/assembly_costs.csv";

interface Edge {
  child: string;
  quantity: number;
}

function records(text: string | undefined, file: string, columns: string[]): Record<string, string>[] {
  const parsed = parseCsv(text ?? "");
  if (!parsed.ok) throw new Error(`${file}: ${parsed.reason}`);
  const { header, records: rows } = parsed.csv;
  for (const c of columns) if (!header.includes(c)) throw new Error(`${file}: no column "${c}"`);
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]!])));
}

/** Assemblies whose expansion reaches a cycle: on a cycle themselves, or containing one that is. */
function cycleAffected(children: Map<string, Edge[]>): Set<string> {
  const state = new Map<string, "open" | "done">();
  const affected = new Set<string>();
  const visit = (node: string): boolean => {
    const seen = state.get(node);
    if (seen === "open") return true;
    if (seen === "done") return affected.has(node);
    state.set(node, "open");
    let reaches = false;
    for (const { child } of children.get(node) ?? []) {
      if (children.has(child) && visit(child)) reaches = true;
    }
    state.set(node, "done");
    if (reaches) affected.add(node);
    return reaches;
  };
  for (const node of children.keys()) visit(node);
  return affected;
}

/** Unrounded cost of every assembly (sorted by id); null where the expansion reaches a cycle. */
export function rawRollUp(bomCsv: string, pricesCsv: string, c: BomConventions) {
  const children = new Map<string, Edge[]>();
  for (const row of records(bomCsv, "bom.csv", ["parent", "child", "quantity"])) {
    const list = children.get(row.parent!) ?? [];
    list.push({ child: row.child!, quantity: Number(row.quantity) });
    children.set(row.parent!, list);
  }
  const prices = new Map(
    records(pricesCsv, "prices.csv", ["part", "unit_price"]).map((r) => [r.part!, Number(r.unit_price)]),
  );
  const affected = cycleAffected(children);
  const memo = new Map<string, number>();
  const leafPrice = (part: string, siblings: Edge[]): number => {
    const price = prices.get(part);
    if (price !== undefined) return price;
    if (c.missingPrice === "zero") return 0;
    const priced = siblings
      .filter((s) => !children.has(s.child) && prices.has(s.child))
      .map((s) => prices.get(s.child)!);
    return priced.length === 0 ? 0 : priced.reduce((a, b) => a + b, 0) / priced.length;
  };
  const cost = (assembly: string): number => {
    const known = memo.get(assembly);
    if (known !== undefined) return known;
    const edges = children.get(assembly)!;
    let sum = 0;
    for (const e of edges)
      sum += e.quantity * (children.has(e.child) ? cost(e.child) : leafPrice(e.child, edges));
    const value = sum * (1 + c.overheadRate);
    memo.set(assembly, value);
    return value;
  };
  return [...children.keys()].sort().map((assembly) => ({
    assembly,
    raw: affected.has(assembly) ? null : cost(assembly),
  }));
}

/** The reported rows: the cycle sentinel as is, costs rounded to cents. */
export function rollUp(bomCsv: string, pricesCsv: string, c: BomConventions) {
  return rawRollUp(bomCsv, pricesCsv, c).map(({ assembly, raw }) => ({
    assembly,
    unit_cost: raw === null ? c.cycleCost : roundHalfAway(raw, 2),
  }));
}

export default defineVerifier<BomConventions>({
  conventions: {
    artefact: { overheadRate: 0.12, missingPrice: "zero", cycleCost: -1 },
    // Without the specification: a plain material roll-up, unknown prices skipped, cycles costed at 0.
    default: { overheadRate: 0, missingPrice: "zero", cycleCost: 0 },
    variants: {
      perturbed: { overheadRate: 0.15, missingPrice: "sibling-mean", cycleCost: 0 },
      compressed: { overheadRate: 0.12, missingPrice: "zero", cycleCost: -1 },
    },
  },
  solve(files, c) {
    return { [OUTPUT]: rollUp(files["bom.csv"] ?? "", files["prices.csv"] ?? "", c) };
  },
});
