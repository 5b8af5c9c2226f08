// The model form of the compression probe: inline cells for the full artefact, each compressed
// variant, the artefact with one convention section cut at a time, and 0 B (-A); pass rates with
// Wilson 95% intervals per configuration, and which conventions are load-bearing for it.
import path from "node:path";
import { type Interval, wilson } from "../common/index.ts";
import { UsageError } from "../errors.ts";
import { outcomeOf, type TrialRecord } from "../record/index.ts";
import {
  type Condition,
  conventionSections,
  cutSection,
  type LoadedTask,
  renderInline,
  sha256,
} from "../task/index.ts";
import { loadVerifier } from "../verify/index.ts";
import { declaredConventions } from "./conventions.ts";
import type { ProbeAgent } from "./models.ts";
import {
  type InlineSlot,
  latestInline,
  latestOf,
  type ProbeRun,
  runInlineSlots,
  type UnitsRun,
} from "./run.ts";

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

/** The arms of the curve; a UsageError naming the file and line of each bad marker (kgate check reports the same). */
export function compressArms(
  task: LoadedTask,
  declared: readonly string[],
): { arms: CompressArm[]; unmarked: string[] } {
  const text = task.artefact.bytes.toString("utf8");
  const file = `artefacts/${task.id}/artefact.md`;
  const { sections, problems } = conventionSections(text, declared);
  if (problems.length > 0)
    throw new UsageError(problems.map((p) => `${file}:${p.line}: ${p.message}`).join("; "));
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

/** n inline trials per arm and configuration through the engine; records appended per arm folder. */
export async function compress(
  task: LoadedTask,
  agents: readonly ProbeAgent[],
  n: number,
  run: ProbeRun,
): Promise<{ report: CompressReport } & UnitsRun<TrialRecord>> {
  const declared = declaredConventions(await loadVerifier(task)).map((c) => c.name);
  const { arms, unmarked } = compressArms(task, declared);
  const cells = agents.flatMap((agent) => arms.map((arm) => ({ agent, arm })));
  const slotsOf = ({ agent, arm }: (typeof cells)[number]): InlineSlot[] => {
    const prompt = renderInline(task, arm.condition, {
      maxEnvironmentBytes: run.maxEnvironmentBytes,
      artefact: arm.artefact,
    });
    return Array.from({ length: n }, (_, index) => ({
      agent,
      task,
      condition: arm.condition,
      ...(arm.artefact ? { artefact: arm.artefact } : {}),
      index,
      system: prompt.system,
      turns: [prompt.text],
      dir: armDir(run.runDir, arm),
    }));
  };
  const ran = await runInlineSlots(run, cells.flatMap(slotsOf));
  const results: ArmResult[] = cells.map((cell) => {
    const latest = latestInline(armDir(run.runDir, cell.arm));
    const records = slotsOf(cell).flatMap((slot) => latestOf(latest, slot) ?? []);
    const valid = records.filter((r) => outcomeOf(r) !== "infra");
    const passes = valid.filter((r) => r.verdict.status === "pass").length;
    const runs = valid.length;
    return {
      arm: cell.arm.label,
      kind: cell.arm.kind,
      bytes: cell.arm.bytes,
      artefactDigest: cell.arm.artefactDigest,
      agent: cell.agent.config.name,
      passes,
      runs,
      rate: runs ? passes / runs : null,
      interval: wilson(passes, runs),
    };
  });
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
  const report = {
    task: task.id,
    agents: agents.map(({ config }) => ({ name: config.name, digest: config.digest, model: config.model })),
    results,
    effects,
    unmarked,
  };
  return { report, ...ran };
}
