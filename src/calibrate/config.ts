// The `calibration` part of kgate.config.json: cells, n, thresholds, concurrency, sequential
// screening. A separate zod schema that the root configuration schema embeds under `calibration`.
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { MAX_CONCURRENCY, RUN_SETTINGS, runSettingDefault } from "../common/index.ts";
import { type ProjectPaths, relativeToProject } from "../project.ts";
import { Condition, type Problem, parseJsonText, problemsFromZod } from "../task/index.ts";
import { RequirementText } from "./requirement.ts";

/** A cell name as used in tables and on the command line: no spaces, no `=`. */
export const CellName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_+\-.:]{0,47}$/, "must be letters, digits and _ + - . : (max 48, no spaces)");

/** `perturbed`: one cell per variant of kind `perturbed` declared by each task. */
export const CellCondition = z.union([Condition, z.literal("perturbed")]);

export const CellSpec = z
  .object({
    name: CellName,
    /** An agent configuration name (kgate.config.json `agents`, or a built-in such as `oracle`). */
    agent: z.string().min(1),
    condition: CellCondition,
    /** A clause of the retain rule (or, with `control`, what the control must show), e.g. ">= 0.6". */
    require: RequirementText.optional(),
    /** A control: failing it makes the decision `revise`, never `discard`. */
    control: z.boolean().default(false),
  })
  .strict();

export const SequentialConfig = z
  .object({
    enabled: z.boolean().default(false),
    /** Most valid trials per cell. */
    cap: z.number().int().min(1).max(1000).default(20),
    /** P(decide "met" | the pass rate sits at the failing edge of the indifference zone). */
    alpha: z.number().gt(0).lt(0.5).default(0.05),
    /** P(decide "not met" | the pass rate sits at the meeting edge of the indifference zone). */
    beta: z.number().gt(0).lt(0.5).default(0.05),
    /** Half-width of the indifference zone around an interior threshold. */
    delta: z.number().gt(0).lt(0.5).default(0.15),
    /** How close to 0 (or 1) the SPRT hypotheses of an interior threshold may be placed. */
    epsilon: z.number().gt(0).lt(0.2).default(0.02),
    /**
     * "= 0" clauses: met once 0/n passes puts the one-sided (1 - alpha) upper bound 1 - alpha^(1/n)
     * below this (0.2 at alpha 0.05: n = 14, bound 0.193); one pass means not met. "= 1" mirrored.
     */
    zeroBound: z.number().gt(0).lt(1).default(0.2),
  })
  .strict();

export const DEFAULT_CELLS = [
  { name: "frontier+A", agent: "frontier", condition: "+A", require: ">= 0.6" },
  { name: "frontier-A", agent: "frontier", condition: "-A", require: "= 0" },
  { name: "mid+A", agent: "mid", condition: "+A", require: "<= 0.4" },
  { name: "control", agent: "frontier", condition: "perturbed", require: "= 0", control: true },
] as const;

export const CalibrationConfig = z
  .object({
    /** Trials per cell (the paper: 5). Under sequential screening, the first round. */
    n: z.number().int().min(1).max(1000).default(5),
    cells: z
      .array(CellSpec)
      .min(1)
      .default(() => DEFAULT_CELLS.map((c) => CellSpec.parse(c)))
      .superRefine((cells, ctx) => {
        const seen = new Set<string>();
        cells.forEach((cell, i) => {
          if (seen.has(cell.name)) {
            ctx.addIssue({
              code: "custom",
              path: [i, "name"],
              message: `duplicate cell name "${cell.name}"`,
            });
          }
          seen.add(cell.name);
          if (cell.control && !cell.require) {
            ctx.addIssue({ code: "custom", path: [i, "require"], message: "a control needs a requirement" });
          }
        });
      }),
    /** Trials running at once, across all cells. */
    concurrency: z._default(RUN_SETTINGS.concurrency.schema, runSettingDefault("concurrency", "calibrate")),
    /** Trials running at once per provider (e.g. { "anthropic": 2 }); unlisted providers share `concurrency`. */
    providerConcurrency: z
      .record(z.string().min(1), z.number().int().min(1).max(MAX_CONCURRENCY))
      .default({}),
    /** Further attempts for a trial that ended in an infrastructure error. */
    infraRetries: z._default(RUN_SETTINGS.retries.schema, runSettingDefault("retries", "calibrate")),
    sequential: SequentialConfig.prefault({}),
    /** Strict: a clause met by one trial makes the decision revise (the paper retains it, flagged). */
    strict: z.boolean().default(false),
    /** Curtailment: a trial that no outcome could make change its task's decision is not run (off: --no-curtail). */
    curtail: z.boolean().default(true),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.sequential.enabled && config.sequential.cap < config.n) {
      ctx.addIssue({
        code: "custom",
        path: ["sequential", "cap"],
        message: `the cap (${config.sequential.cap}) is below n (${config.n})`,
      });
    }
  });

export type CellSpec = z.infer<typeof CellSpec>;
export type CellCondition = z.infer<typeof CellCondition>;
export type SequentialConfig = z.infer<typeof SequentialConfig>;
export type CalibrationConfig = z.infer<typeof CalibrationConfig>;
export type CalibrationConfigInput = z.input<typeof CalibrationConfig>;

export type ConfigResult =
  | { ok: true; config: CalibrationConfig; file: string | null }
  | { ok: false; errors: Problem[] };

/** Reads the `calibration` key of kgate.config.json; a missing file or key gives the defaults. */
export function loadCalibrationConfig(paths: ProjectPaths): ConfigResult {
  if (!existsSync(paths.config)) return { ok: true, config: CalibrationConfig.parse({}), file: null };
  const file = relativeToProject(paths, paths.config);
  const json = parseJsonText(file, readFileSync(paths.config, "utf8"));
  if (!json.ok) return { ok: false, errors: [json.problem] };
  const root = json.value;
  if (typeof root !== "object" || root === null || Array.isArray(root)) {
    return { ok: false, errors: [{ severity: "error", file, message: "must be a JSON object" }] };
  }
  const parsed = CalibrationConfig.safeParse((root as Record<string, unknown>).calibration ?? {});
  if (!parsed.success) {
    const errors = problemsFromZod(file, parsed.error).map((p) => ({
      ...p,
      field: p.field === "(root)" ? "calibration" : `calibration.${p.field}`,
    }));
    return { ok: false, errors };
  }
  return { ok: true, config: parsed.data, file };
}
