// The model form of the compression probe: inline cells for the full artefact, each compressed
// variant, the artefact with one convention section cut at a time, and 0 B (-A); pass rates with
// Wilson 95% intervals per configuration, and which conventions are load-bearing for it.
import path from "node:path";
import { type Interval, wilson } from "../common/index.ts";
import { outcomeOf } from "../model/index.ts";
import { type Condition, type LoadedTask, renderInline, sha256 } from "../task/index.ts";
import { loadVerifier } from "../verify/index.ts";
import { declaredConventions } from "./conventions.ts";
import { runInlineTrial } from "./inline-trial.ts";
import type { ProbeAgent } from "./models.ts";
import type { ProbeRun } from "./recite.ts";
import { conventionSections, cutSection } from "./sections.ts";

export interface CompressArm {
  /** `artefact`, `variant:<name>`, `cut:<convention>` or `0 B`. */
  label: string;
  kind: "artefact" | "compressed" | "cut" | "absent";
  condition: Condition;
  /** Under a cut: the artefact without that section. */
  artefact?: Buffer;
  bytes: number;
  artefactDigest: string | null;
}

export interface ArmResult {
  arm: string;
  kind: CompressArm["kind"];
  bytes: number;
  artefactDigest: string | null;
  agent: string;
  passes: number;
  /** Trials without an infrastructure error. */
  runs: number;
  rate: number | null;
  interval: Interval;
}

export type ConventionEffect = "load-bearing" | "no effect" | "undecided";

export interface CompressReport {
  task: string;
  agents: Array<{ name: string; digest: string; model: string }>;
  results: ArmResult[];
  /** Per convention with a section, per configuration: what cutting it did. */
  effects: Array<{ convention: string; agent: string; effect: ConventionEffect }>;
  /** Declared conventions the artefact has no section for (not cut). */
  unmarked: string[];
}

/** The arms of the curve; throws a line-precise SectionError on malformed markers. */
export function compressArms(
  task: LoadedTask,
  declared: readonly string[],
): { arms: CompressArm[]; unmarked: string[] } {
  const text = task.artefact.bytes.toString("utf8");
  const file = `artefacts/${task.id}/artefact.md`;
  const sections = conventionSections(text, file, declared);
  const arms: CompressArm[] = [
    {
      label: "artefact",
      kind: "artefact",
      condition: "+A",
      bytes: task.artefact.bytes.length,
      artefactDigest: task.artefact.sha256,
    },
  ];
  for (const v of task.variants) {
    if (task.spec.artefact.variants[v.name]?.kind !== "compressed") continue;
    arms.push({
      label: `variant:${v.name}`,
      kind: "compressed",
      condition: `variant:${v.name}`,
      bytes: v.bytes.length,
      artefactDigest: v.sha256,
    });
  }
  for (const section of sections) {
    const cut = Buffer.from(cutSection(text, section), "utf8");
    arms.push({
      label: `cut:${section.name}`,
      kind: "cut",
      condition: "+A",
      artefact: cut,
      bytes: cut.length,
      artefactDigest: sha256(cut),
    });
  }
  arms.push({ label: "0 B", kind: "absent", condition: "-A", bytes: 0, artefactDigest: null });
  const marked = new Set(sections.map((s) => s.name));
  return { arms, unmarked: declared.filter((d) => !marked.has(d)) };
}

/** Cutting a section is load-bearing when its interval lies wholly below the full artefact's. */
export function effectOf(full: ArmResult, cut: ArmResult): ConventionEffect {
  if (cut.runs > 0 && full.runs > 0 && cut.interval.hi < full.interval.lo) return "load-bearing";
  if (cut.rate !== null && full.rate !== null && cut.rate >= full.rate) return "no effect";
  return "undecided";
}

/** The folder of one arm's records inside the probe's run (trial ids repeat across arms). */
export function armDir(runDir: string, arm: CompressArm): string {
  return path.join(runDir, "compress", arm.label.replace(/[^A-Za-z0-9.-]+/g, "-"));
}

/** n inline trials per arm and configuration; records appended per arm folder as each finishes. */
export async function compress(
  task: LoadedTask,
  agents: readonly ProbeAgent[],
  n: number,
  run: ProbeRun,
): Promise<CompressReport> {
  const declared = declaredConventions(await loadVerifier(task)).map((c) => c.name);
  const { arms, unmarked } = compressArms(task, declared);
  const results: ArmResult[] = [];
  for (const { config, model } of agents) {
    for (const arm of arms) {
      const prompt = renderInline(task, arm.condition, {
        maxEnvironmentBytes: run.maxEnvironmentBytes,
        artefact: arm.artefact,
      });
      let passes = 0;
      let runs = 0;
      for (let index = 0; index < n; index++) {
        const { record } = await runInlineTrial({
          task,
          condition: arm.condition,
          artefact: arm.artefact,
          config,
          model,
          system: prompt.system,
          turns: [prompt.text],
          runId: run.runId,
          runDir: armDir(run.runDir, arm),
          index,
          signal: run.signal,
        });
        run.onRecord?.(record);
        if (outcomeOf(record) === "infra") continue;
        runs += 1;
        if (record.verdict.status === "pass") passes += 1;
      }
      results.push({
        arm: arm.label,
        kind: arm.kind,
        bytes: arm.bytes,
        artefactDigest: arm.artefactDigest,
        agent: config.name,
        passes,
        runs,
        rate: runs ? passes / runs : null,
        interval: wilson(passes, runs),
      });
    }
  }
  const effects = agents.flatMap(({ config }) => {
    const mine = results.filter((r) => r.agent === config.name);
    const full = mine.find((r) => r.kind === "artefact")!;
    return mine
      .filter((r) => r.kind === "cut")
      .map((cut) => ({
        convention: cut.arm.slice("cut:".length),
        agent: config.name,
        effect: effectOf(full, cut),
      }));
  });
  return {
    task: task.id,
    agents: agents.map(({ config }) => ({ name: config.name, digest: config.digest, model: config.model })),
    results,
    effects,
    unmarked,
  };
}
