// Crossed cells: the frontier model in the mid harness and the mid model in the frontier harness,
// so that a low mid score can be split into a model effect and a harness effect (+A pass rates of
// the 2 x 2 design), each with a 95% interval by the MOVER method over Wilson intervals.
import type { ResolvedAgentConfig } from "../agents/index.ts";
import { type Interval, wilson } from "../common/index.ts";

/** What a configuration's model is; everything else of it (harness, tools, budget, prompt) is its harness. */
export const MODEL_FIELDS = [
  "provider",
  "model",
  "baseUrl",
  "apiKeyEnv",
  "temperature",
  "maxOutputTokens",
  "pricing",
] as const;
const NOT_COMPARED = new Set(["description", "name", "digest", "harnessRevision", ...MODEL_FIELDS]);

export interface CrossConfigs {
  frontier: ResolvedAgentConfig;
  mid: ResolvedAgentConfig;
  /** The frontier model in the mid harness. */
  frontierModelMidHarness: ResolvedAgentConfig;
  /** The mid model in the frontier harness. */
  midModelFrontierHarness: ResolvedAgentConfig;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function differing(a: ResolvedAgentConfig, b: ResolvedAgentConfig, model: boolean): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const fields = model ? [...MODEL_FIELDS] : [...keys].filter((k) => !NOT_COMPARED.has(k)).sort();
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  return fields.filter((f) => !same(ra[f], rb[f]));
}

/** Why the crossed configurations are not a true crossing (field by field); empty when they are. */
export function crossProblems(c: CrossConfigs): string[] {
  const problems: string[] = [];
  const check = (crossed: ResolvedAgentConfig, from: ResolvedAgentConfig, what: "model" | "harness") => {
    for (const f of differing(crossed, from, what === "model")) {
      problems.push(
        `agents.${crossed.name}.${f} differs from agents.${from.name}.${f} (the ${what} must be ${from.name}'s)`,
      );
    }
  };
  check(c.frontierModelMidHarness, c.frontier, "model");
  check(c.frontierModelMidHarness, c.mid, "harness");
  check(c.midModelFrontierHarness, c.mid, "model");
  check(c.midModelFrontierHarness, c.frontier, "harness");
  return problems;
}

export interface CrossTally {
  passes: number;
  runs: number;
}

export interface Effect {
  /** Difference of pass rates (frontier minus mid), null while a cell has no valid run. */
  estimate: number | null;
  interval: Interval;
}

export interface CrossAnalysis {
  /** +A pass counts: [model][harness]. */
  cells: { ff: CrossTally; fm: CrossTally; mf: CrossTally; mm: CrossTally };
  /** Frontier minus mid model, averaged over the two harnesses; and within each harness. */
  model: Effect & { inFrontierHarness: Effect; inMidHarness: Effect };
  /** Frontier minus mid harness, averaged over the two models; and with each model. */
  harness: Effect & { withFrontierModel: Effect; withMidModel: Effect };
}

/**
 * MOVER (Zou & Donner 2008) interval for sum_i c_i p_i over independent proportions, from each
 * proportion's Wilson interval; with c = (1, -1) it is Newcombe's interval for a difference.
 */
export function moverInterval(terms: ReadonlyArray<{ c: number; tally: CrossTally }>): Effect {
  if (terms.some((t) => t.tally.runs === 0)) return { estimate: null, interval: { lo: -1, hi: 1 } };
  let estimate = 0;
  let below = 0;
  let above = 0;
  for (const { c, tally } of terms) {
    const p = tally.passes / tally.runs;
    const w = wilson(tally.passes, tally.runs);
    const [lo, hi] = c >= 0 ? [c * w.lo, c * w.hi] : [c * w.hi, c * w.lo];
    estimate += c * p;
    below += (c * p - lo) ** 2;
    above += (hi - c * p) ** 2;
  }
  return { estimate, interval: { lo: estimate - Math.sqrt(below), hi: estimate + Math.sqrt(above) } };
}

export function crossAnalysis(cells: CrossAnalysis["cells"]): CrossAnalysis {
  const { ff, fm, mf, mm } = cells;
  return {
    cells,
    model: {
      ...moverInterval([
        { c: 0.5, tally: ff },
        { c: 0.5, tally: fm },
        { c: -0.5, tally: mf },
        { c: -0.5, tally: mm },
      ]),
      inFrontierHarness: moverInterval([
        { c: 1, tally: ff },
        { c: -1, tally: mf },
      ]),
      inMidHarness: moverInterval([
        { c: 1, tally: fm },
        { c: -1, tally: mm },
      ]),
    },
    harness: {
      ...moverInterval([
        { c: 0.5, tally: ff },
        { c: 0.5, tally: mf },
        { c: -0.5, tally: fm },
        { c: -0.5, tally: mm },
      ]),
      withFrontierModel: moverInterval([
        { c: 1, tally: ff },
        { c: -1, tally: fm },
      ]),
      withMidModel: moverInterval([
        { c: 1, tally: mf },
        { c: -1, tally: mm },
      ]),
    },
  };
}
