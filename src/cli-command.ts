// The CLI's Command: commander's, with required options checked after its unknown-option check, so a
// misspelt option (`kgate run t --agnet x`) is reported as unknown with commander's suggestion ("Did
// you mean --agent?") instead of as a missing `--agent` (commander checks mandatory options first).
import { Command, type Option } from "commander";

const REQUIRED = new WeakSet<Option>();

export class KgateCommand extends Command {
  override createCommand(name?: string): KgateCommand {
    return new KgateCommand(name);
  }

  /** An option that must be given, checked before the action runs (checkRequiredOptions). */
  override requiredOption(flags: string, description?: string, ...rest: unknown[]): this {
    (this.option as (...args: unknown[]) => this)(flags, description, ...rest);
    REQUIRED.add(this.options.at(-1)!);
    return this;
  }
}

/** A preAction hook: the action's command's required options that were not given, as commander's error. */
export function checkRequiredOptions(_program: Command, command: Command): void {
  for (const option of command.options) {
    if (REQUIRED.has(option) && command.getOptionValue(option.attributeName()) === undefined)
      command.error(`error: required option '${option.flags}' not specified`, {
        code: "commander.missingMandatoryOptionValue",
      });
  }
}
