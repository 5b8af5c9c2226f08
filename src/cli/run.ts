// The CLI's `kgate run <task>`: N trials of one cell.
import type { Command } from "commander";
import { type ActionFor, NO_PING_HELP } from "./action.ts";
import { settingOption } from "./settings.ts";

export function registerRun(program: Command, action: ActionFor): void {
  program
    .command("run")
    .description("run N trials of one task under one condition with one agent; one record per trial")
    .argument("<task>", "task id")
    .requiredOption(
      "--agent <name>",
      "agent: oracle, noop, or a configuration in kgate.config.json (see kgate agents)",
    )
    .option("--condition <condition>", "+A, -A or variant:<name>", "+A")
    .option("-n <count>", "number of trials", "1")
    .addOption(settingOption("concurrency", "run", "trials in flight at once"))
    .addOption(settingOption("retries", "run", "extra attempts after a transient infrastructure error"))
    .option("--run-id <id>", "append to this run (default: a new run id)")
    .option(
      "--monitor",
      "after each trial ask the KEEP/WITHDRAW and BET/NO_BET questions (built-in loop or installed harness)",
    )
    .option(
      "--prospective",
      "before each -A trial ask ANSWER_DIRECTLY / REQUEST_SPEC / DECLINE (built-in loop or installed harness)",
    )
    .option("--payoff <file>", "payoff schedule of the prospective choice (JSON; default 1/0, 0.5/0.1, 0.25)")
    .option("--no-ping", NO_PING_HELP)
    .option("--json", "machine-readable output")
    .action(action("run"));
}
