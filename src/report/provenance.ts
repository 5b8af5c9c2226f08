// What produced a run: the named agent configuration behind each column of Table 1 (model,
// harness and the versions recorded, provider, digest) and the kgate versions and sandbox images
// the records name. Records made before kgate recorded provenance are counted, not guessed.

import { kgateVersion } from "../package-info.ts";
import type { TrialRecord } from "../record/index.ts";
import type { Configuration, Provenance, RunSummary } from "./schema.ts";

/** The kgate that writes this report. */
export const KGATE_VERSION: string = kgateVersion();

interface AgentOfPlan {
  name: string;
  digest: string;
  harness: string;
  model: string | null;
  provider: string;
}

interface SpecOfPlan {
  name: string;
  agent: string;
  condition: string;
}

const distinct = (values: Iterable<string | null | undefined>): string[] =>
  [...new Set([...values].filter((v): v is string => typeof v === "string" && v.length > 0))].sort();

/** One configuration per cell spec (a column of Table 1), in the plan's order. */
export function configurationsOf(
  agents: readonly AgentOfPlan[],
  specs: readonly SpecOfPlan[],
  records: readonly TrialRecord[],
): Configuration[] {
  return specs.map((spec) => {
    const agent = agents.find((a) => a.name === spec.agent);
    const mine = records.filter((r) => r.agent.name === spec.agent);
    return {
      label: spec.name,
      condition: spec.condition,
      agent: spec.agent,
      model: agent?.model ?? null,
      harness: agent?.harness ?? "unknown",
      harnessVersions: distinct(mine.map((r) => r.provenance?.harnessVersion)),
      provider: agent?.provider ?? "unknown",
      digest: agent?.digest ?? "unknown",
    };
  });
}

/** The kgate versions and sandbox images the records name, and how many records name none. */
export function provenanceOf(records: readonly TrialRecord[]): Provenance {
  const known = records.map((r) => r.provenance ?? null);
  return {
    reportKgateVersion: KGATE_VERSION,
    kgateVersions: distinct(known.map((p) => p?.kgateVersion)),
    sandboxImages: distinct(known.map((p) => p?.sandboxImage)),
    sandboxBases: distinct(known.map((p) => p?.sandboxBase)),
    recordsWithout: known.filter((p) => p === null).length,
  };
}

/** "frontier-model via scripted 1.2 (anthropic), digest 1a2b3c4d5e6f" */
export function configurationText(c: Configuration): string {
  const version = c.harnessVersions.length > 0 ? ` ${c.harnessVersions.join("/")}` : "";
  return `${c.model ?? "no model"} via ${c.harness}${version} (${c.provider}), digest ${c.digest.slice(0, 12)}`;
}

/** The provenance in words, one line each: the report's kgate, the records' kgate and images. */
export function provenanceLines(s: RunSummary): string[] {
  const p = s.provenance;
  if (!p) return ["provenance: not recorded in this summary"];
  const list = (values: string[]) => (values.length > 0 ? values.join(", ") : "not recorded");
  const without = p.recordsWithout > 0 ? ` (${p.recordsWithout} record(s) carry no provenance)` : "";
  return [
    `report by kgate ${p.reportKgateVersion}; trials by kgate ${list(p.kgateVersions)}${without}`,
    `sandbox image ${list(p.sandboxImages)}; base ${list(p.sandboxBases)}`,
  ];
}
