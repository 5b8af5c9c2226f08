// Command-line overrides of the calibration config: -n, --cell, --threshold, --frontier/--mid,
// --no-controls, --concurrency, --provider-concurrency, --sequential, --cap, --confidence, --strict, --no-curtail.
import { CalibrationConfig, CellCondition, CellName, type CellSpec } from "./config.ts";
import { parseRequirement, type Requirement } from "./requirement.ts";

export interface ConfigOverrides {
  n?: number;
  cell?: string[];
  threshold?: string[];
  controls?: boolean;
  frontier?: string;
  mid?: string;
  concurrency?: number;
  providerConcurrency?: string[];
  sequential?: boolean;
  cap?: number;
  confidence?: number;
  strict?: boolean;
  /** --no-curtail: run every planned trial. */
  curtail?: boolean;
}

/** A bad override, worded for the command line. */
export class OverrideError extends Error {
  override name = "OverrideError";
}

function requirementOrThrow(text: string, where: string): Requirement {
  const parsed = parseRequirement(text);
  if (typeof parsed === "string") throw new OverrideError(`${where}: ${parsed}`);
  return parsed;
}

/** `--cell name=agent:condition[>=t|<=t|=0]`, e.g. `opus+A=opus:+A>=0.6`, `ctl=opus:perturbed=0`. */
export function parseCellOption(text: string): CellSpec {
  const where = `--cell "${text}"`;
  const eq = text.indexOf("=");
  const colon = text.indexOf(":", eq + 1);
  if (eq <= 0 || colon < 0) {
    throw new OverrideError(
      `${where}: expected name=agent:condition with an optional requirement (>=t, <=t, =0)`,
    );
  }
  const name = CellName.safeParse(text.slice(0, eq));
  if (!name.success) throw new OverrideError(`${where}: cell name ${name.error.issues[0]?.message}`);
  const agent = text.slice(eq + 1, colon);
  if (!agent) throw new OverrideError(`${where}: the agent is missing`);
  const rest = text.slice(colon + 1);
  const at = rest.search(/>=|<=|=/);
  const conditionText = at < 0 ? rest : rest.slice(0, at);
  const condition = CellCondition.safeParse(conditionText);
  if (!condition.success) {
    throw new OverrideError(
      `${where}: condition "${conditionText}" must be +A, -A, variant:<name> or perturbed`,
    );
  }
  const require = at < 0 ? undefined : requirementOrThrow(rest.slice(at), where);
  return { name: name.data, agent, condition: condition.data, require, control: false };
}

/** `--threshold name>=t` (or `<=t`, `=0`): a new requirement for an existing cell. */
export function parseThresholdOption(text: string): { name: string; require: Requirement } {
  const m = /^([^<>=\s]+)\s*((?:>=|<=|=).*)$/.exec(text);
  if (!m) throw new OverrideError(`--threshold "${text}": expected <cell><op><value>, e.g. frontier+A>=0.6`);
  return { name: m[1]!, require: requirementOrThrow(m[2]!, `--threshold "${text}"`) };
}

/** `--provider-concurrency anthropic=2`. */
export function parseProviderLimit(text: string): [string, number] {
  const m = /^([^=\s]+)=(\d+)$/.exec(text);
  const value = Number(m?.[2]);
  if (!m || !Number.isInteger(value) || value < 1) {
    throw new OverrideError(`--provider-concurrency "${text}": expected provider=N with N >= 1`);
  }
  return [m[1]!, value];
}

function positiveInteger(value: number | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1)
    throw new OverrideError(`${option}: expected a positive integer`);
  return value;
}

/** The configuration with the command line applied; throws OverrideError on a bad option. */
export function applyOverrides(base: CalibrationConfig, o: ConfigOverrides): CalibrationConfig {
  let cells = base.cells.map((c) => ({ ...c }));
  for (const text of o.cell ?? []) {
    const cell = parseCellOption(text);
    const i = cells.findIndex((c) => c.name === cell.name);
    if (i >= 0) cells[i] = cell;
    else cells.push(cell);
  }
  for (const text of o.threshold ?? []) {
    const { name, require } = parseThresholdOption(text);
    const cell = cells.find((c) => c.name === name);
    if (!cell) {
      throw new OverrideError(
        `--threshold "${text}": no cell "${name}" (cells: ${cells.map((c) => c.name).join(", ")})`,
      );
    }
    cell.require = require;
  }
  const rename = (agent: string) =>
    agent === "frontier" ? (o.frontier ?? agent) : agent === "mid" ? (o.mid ?? agent) : agent;
  cells = cells.map((c) => ({ ...c, agent: rename(c.agent) }));
  if (o.controls === false) cells = cells.filter((c) => !c.control);
  if (cells.length === 0) throw new OverrideError("no cell left to calibrate");

  const confidence = o.confidence;
  if (confidence !== undefined && !(confidence > 0.5 && confidence < 1)) {
    throw new OverrideError("--confidence: expected a number between 0.5 and 1, e.g. 0.95");
  }
  const config: CalibrationConfig = {
    ...base,
    n: positiveInteger(o.n, "-n") ?? base.n,
    cells,
    // checked by the schema below (the command line parses it with commands/options.ts first)
    concurrency: o.concurrency ?? base.concurrency,
    providerConcurrency: {
      ...base.providerConcurrency,
      ...Object.fromEntries((o.providerConcurrency ?? []).map(parseProviderLimit)),
    },
    sequential: {
      ...base.sequential,
      enabled: o.sequential ?? base.sequential.enabled,
      cap: positiveInteger(o.cap, "--cap") ?? base.sequential.cap,
      ...(confidence === undefined ? {} : { alpha: 1 - confidence, beta: 1 - confidence }),
    },
    strict: o.strict ?? base.strict,
    curtail: o.curtail ?? base.curtail,
  };
  const checked = CalibrationConfig.safeParse(withRequirementText(config));
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new OverrideError(`${issue.path.join(".")}: ${issue.message}`);
  }
  return checked.data;
}

/** The config back in its written form (requirements as text), so the schema checks it once more. */
function withRequirementText(config: CalibrationConfig) {
  return {
    ...config,
    cells: config.cells.map((c) => ({
      ...c,
      require: c.require && `${c.require.op} ${c.require.threshold}`,
    })),
  };
}
