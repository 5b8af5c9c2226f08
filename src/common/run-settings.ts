// The run settings of the verbs that schedule trials (--concurrency, --retries): one zod schema each
// with its bounds and its defaults (one, and a verb's own where it declares one here with its reason),
// parsed once at the CLI edge (src/cli/settings.ts, help text generated from here) and by
// kgate.config.json's calibration section. zod/mini: the CLI loads it at start-up for every verb.
import * as z from "zod/mini";

/** The most trials in flight at once that a config or --concurrency may ask for. */
export const MAX_CONCURRENCY = 256;
/** The most extra attempts of a unit after a transient infrastructure error. */
export const MAX_RETRIES = 10;

/** The verbs that schedule trials, units or exams, and so read the run settings. */
export type RunVerb = "run" | "calibrate" | "check" | "probe" | "exam" | "triage";

/**
 * A whole-number setting: its flag, bounds (inclusive), its one default and the verbs that have a
 * default of their own (each with its reason), and the schema of the bounds.
 */
function setting(
  flag: string,
  min: number,
  max: number,
  fallback: number,
  byVerb: Partial<Record<RunVerb, number>> = {},
) {
  return { flag, min, max, default: fallback, byVerb, schema: z.int().check(z.gte(min), z.lte(max)) };
}

export const RUN_SETTINGS = {
  /** Trials (units, exams, tasks) in flight at once. */
  concurrency: setting("--concurrency", 1, MAX_CONCURRENCY, 2, {
    // kgate run is the verb for watching a task: one trial at a time, in order, unless asked
    run: 1,
  }),
  /** Extra attempts of a unit after a transient infrastructure error. */
  retries: setting("--retries", 0, MAX_RETRIES, 1, {
    // a calibration runs many trials for hours: one more attempt before a trial is left to --resume
    calibrate: 2,
  }),
} as const;

export type RunSettingName = keyof typeof RUN_SETTINGS;

/** The default of the run setting `name` for `verb`: the verb's own when it declares one, else the setting's. */
export function runSettingDefault(name: RunSettingName, verb: RunVerb): number {
  const byVerb: Partial<Record<RunVerb, number>> = RUN_SETTINGS[name].byVerb;
  return byVerb[verb] ?? RUN_SETTINGS[name].default;
}

/** The run setting `name` from its command-line text, or the one-line problem naming the flag. */
export function parseRunSetting(
  name: RunSettingName,
  text: string,
): { value: number; problem?: undefined } | { problem: string } {
  const { flag, schema, min, max } = RUN_SETTINGS[name];
  const parsed = /^\d{1,9}$/.test(text) ? schema.safeParse(Number(text)) : null;
  if (parsed?.success) return { value: parsed.data };
  return { problem: `${flag} must be an integer from ${min} to ${max}, got "${text}"` };
}
