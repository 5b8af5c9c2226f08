// The run settings' command-line options (--concurrency, --retries): parsed once here by the one
// validator of src/common/run-settings.ts, so a verb's options hold numbers; the default shown in the
// help is the setting's own, never typed into a help string.
import { Option } from "commander";
import {
  parseRunSetting,
  RUN_SETTINGS,
  type RunSettingName,
  type RunVerb,
  runSettingDefault,
} from "../common/run-settings.ts";
import { UsageError } from "../errors.ts";

/** Where the default comes from when the option is left out: the setting's, or the verb's config. */
export type SettingDefault = "setting" | { from: string };

/** `--<name> <count>` of `verb` parsed to a number (a UsageError naming the flag otherwise), with the verb's default. */
export function settingOption(
  name: RunSettingName,
  verb: RunVerb,
  description: string,
  fallback: SettingDefault = "setting",
): Option {
  const { flag } = RUN_SETTINGS[name];
  const value = runSettingDefault(name, verb);
  const option = new Option(
    `${flag} <count>`,
    fallback === "setting" ? description : `${description} (default ${fallback.from}, else ${value})`,
  ).argParser((text) => {
    const parsed = parseRunSetting(name, text);
    if (parsed.problem !== undefined) throw new UsageError(parsed.problem);
    return parsed.value;
  });
  return fallback === "setting" ? option.default(value) : option;
}
