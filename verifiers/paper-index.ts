// Verifier for paper-index: Brandes betweenness on the citation graph as a pure function of
// papers.csv, citations.csv and the normalisation convention (direction of links, scale of pairs).
import { defineVerifier, parseCsv, roundHalfAway } from "kgate/verify";

export interface PaperIndexConventions {
  /** `directed`: a citation is a link from the citing to the cited paper; `undirected`: both ways. */
  direction: "directed" | "undirected";
  /**
   * The pairs a raw betweenness is divided by: those among the other papers of the whole graph, or
   * of the paper's own (weakly) connected component. Ordered pairs (n-1)(n-2) when directed,
   * unordered (n-1)(n-2)/2 when undirected; 0 when there are no such pairs.
   */
  scale: "graph" | "component";
  /** Decimals of the reported value. */
  decimals: number;
}

export const OUTPUT = "output/centrality.json";

function rows(text: string | undefined, file: string): string[][] {
  const parsed = parseCsv(text ?? "");
  if (!parsed.ok) throw new Error(`${file}: ${parsed.reason}`);
  return parsed.csv.records;
}

/** Brandes (2001): one BFS per source, dependencies accumulated in reverse BFS order. */
export function brandes(
  nodes: readonly string[],
  out: ReadonlyMap<string, readonly string[]>,
): Map<string, number> {
  const cb = new Map(nodes.map((v) => [v, 0]));
  for (const s of nodes) {
    const stack: string[] = [];
    const preds = new Map<string, string[]>(nodes.map((v) => [v, []]));
    const sigma = new Map(nodes.map((v) => [v, 0]));
    const dist = new Map(nodes.map((v) => [v, -1]));
    sigma.set(s, 1);
    dist.set(s, 0);
    const queue = [s];
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head]!;
      stack.push(v);
      for (const w of out.get(v) ?? []) {
        if (dist.get(w)! < 0) {
          dist.set(w, dist.get(v)! + 1);
          queue.push(w);
        }
        if (dist.get(w) === dist.get(v)! + 1) {
          sigma.set(w, sigma.get(w)! + sigma.get(v)!);
          preds.get(w)!.push(v);
        }
      }
    }
    const delta = new Map(nodes.map((v) => [v, 0]));
    while (stack.length > 0) {
      const w = stack.pop()!;
      for (const v of preds.get(w)!) {
        delta.set(v, delta.get(v)! + (sigma.get(v)! / sigma.get(w)!) * (1 + delta.get(w)!));
      }
      if (w !== s) cb.set(w, cb.get(w)! + delta.get(w)!);
    }
  }
  return cb;
}

/** Size of each node's weakly connected component. */
function componentSizes(nodes: readonly string[], links: ReadonlyArray<readonly [string, string]>) {
  const parent = new Map(nodes.map((v) => [v, v]));
  const find = (v: string): string => {
    let root = v;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(v, root);
    return root;
  };
  for (const [a, b] of links) parent.set(find(a), find(b));
  const count = new Map<string, number>();
  for (const v of nodes) count.set(find(v), (count.get(find(v)) ?? 0) + 1);
  return new Map(nodes.map((v) => [v, count.get(find(v))!]));
}

export function centrality(papersCsv: string, citationsCsv: string, c: PaperIndexConventions) {
  const nodes = rows(papersCsv, "papers.csv").map((r) => r[0]!);
  const known = new Set(nodes);
  const links = new Set<string>();
  const pairs: Array<[string, string]> = [];
  for (const [citing, cited] of rows(citationsCsv, "citations.csv")) {
    if (!citing || !cited || citing === cited || !known.has(citing) || !known.has(cited)) continue;
    const key = `${citing}\u0000${cited}`;
    if (links.has(key)) continue;
    links.add(key);
    pairs.push([citing, cited]);
  }
  const out = new Map<string, string[]>(nodes.map((v) => [v, []]));
  for (const [a, b] of pairs) {
    out.get(a)!.push(b);
    if (c.direction === "undirected" && !links.has(`${b}\u0000${a}`)) out.get(b)!.push(a);
  }
  const raw = brandes(nodes, out);
  const sizes = componentSizes(nodes, pairs);
  return {
    papers: nodes.map((paper_id) => {
      const n = c.scale === "graph" ? nodes.length : sizes.get(paper_id)!;
      const orderedPairs = (n - 1) * (n - 2);
      const denominator = c.direction === "directed" ? orderedPairs : orderedPairs / 2;
      // Brandes over all sources counts each unordered pair twice on an undirected graph.
      const value = raw.get(paper_id)! / (c.direction === "directed" ? 1 : 2);
      return { paper_id, betweenness: denominator > 0 ? roundHalfAway(value / denominator, c.decimals) : 0 };
    }),
  };
}

export default defineVerifier<PaperIndexConventions>({
  conventions: {
    artefact: { direction: "directed", scale: "component", decimals: 6 },
    // Without the specification: the textbook default (networkx's normalized=True on a DiGraph).
    default: { direction: "directed", scale: "graph", decimals: 6 },
    variants: {
      perturbed: { direction: "undirected", scale: "component", decimals: 6 },
      compressed: { direction: "directed", scale: "component", decimals: 6 },
    },
  },
  solve(files, c) {
    return { [OUTPUT]: centrality(files["papers.csv"] ?? "", files["citations.csv"] ?? "", c) };
  },
});
