// Variants of the artefact that change one convention only, derived for the check that the oracle
// follows the artefact. A convention no perturbed variant changes is the oracle's blind spot (an
// oracle may hard-code it and still pass every variant): when its value is a number written in its
// convention section, the section is rewritten with the default's value in the same written form
// (0.975 -> 0.9, 12% -> 15%), and the verifier's answer under the artefact's conventions with that
// one changed is what the oracle must then give.
import { isDeepStrictEqual } from "node:util";
import { conventionSections, type LoadedTask } from "../task/index.ts";
import type { LoadedVerifier } from "../verify/index.ts";
import { isRecord } from "./answer-diff.ts";

export interface DerivedVariant {
  /** The convention it changes. */
  convention: string;
  /** The artefact's value and the value written instead. */
  from: number;
  to: number;
  /** The derived artefact's text. */
  text: string;
  /** The verifier's conventions for it: the artefact's with this one changed. */
  conventions: Record<string, unknown>;
}

export interface Derivation {
  derived: DerivedVariant[];
  /** Conventions no perturbed variant changes and no derived variant can (not a number in a marked section). */
  underived: string[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** How `value` is written, and how `other` is written the same way: plain, and in percent for rates. */
function forms(value: number, other: number): Array<[RegExp, string]> {
  const plain = (n: number) => String(Number(n.toPrecision(12)));
  const out: Array<[RegExp, string]> = [];
  if (Math.abs(value) < 1 && value !== 0) {
    out.push([
      new RegExp(`(?<![\\d.])${escapeRegExp(plain(value * 100))}(\\s*%|\\s*percent)`, "g"),
      `${plain(other * 100)}$1`,
    ]);
  }
  out.push([new RegExp(`(?<![\\d.])${escapeRegExp(plain(value))}(?![\\d]|\\.\\d)`, "g"), plain(other)]);
  return out;
}

/** The section's body with every written form of `from` replaced by `to`, or undefined when none is. */
function rewrite(body: string, from: number, to: number): string | undefined {
  let changed = false;
  let text = body;
  for (const [pattern, replacement] of forms(from, to)) {
    text = text.replace(pattern, (...args) => {
      changed = true;
      return replacement.replace("$1", String(args[1] ?? ""));
    });
  }
  return changed ? text : undefined;
}

/** Conventions some perturbed variant of the verifier changes. */
function perturbedConventions(task: LoadedTask, loaded: LoadedVerifier): Set<string> {
  const { artefact, variants } = loaded.verifier.conventions;
  const changed = new Set<string>();
  if (!isRecord(artefact)) return changed;
  for (const variant of task.variants) {
    const set = variants[variant.name];
    if (variant.kind !== "perturbed" || !isRecord(set)) continue;
    for (const key of Object.keys(artefact))
      if (!isDeepStrictEqual(set[key], artefact[key])) changed.add(key);
  }
  return changed;
}

/** The derived variants of a task (one per convention that no perturbed variant changes, where possible). */
export function deriveVariants(task: LoadedTask, loaded: LoadedVerifier): Derivation {
  const { artefact, default: defaults } = loaded.verifier.conventions;
  if (!isRecord(artefact) || !isRecord(defaults)) return { derived: [], underived: [] };
  const text = task.artefact.bytes.toString("utf8");
  const lines = text.split("\n");
  const sections = conventionSections(text).sections;
  const covered = perturbedConventions(task, loaded);
  const derived: DerivedVariant[] = [];
  const underived: string[] = [];
  for (const name of Object.keys(artefact)) {
    const from = artefact[name];
    const to = defaults[name];
    if (covered.has(name) || isDeepStrictEqual(from, to)) continue;
    const section = sections.find((s) => s.name === name);
    const body =
      section && typeof from === "number" && typeof to === "number"
        ? rewrite(section.body, from, to)
        : undefined;
    if (!section || body === undefined) {
      underived.push(name);
      continue;
    }
    const rewritten = [...lines.slice(0, section.startLine), body, ...lines.slice(section.endLine - 1)].join(
      "\n",
    );
    derived.push({
      convention: name,
      from: from as number,
      to: to as number,
      text: rewritten,
      conventions: { ...artefact, [name]: to },
    });
  }
  return { derived, underived };
}
