// The CLI's `kgate calibrate [task...]`: n trials per cell, pass rates, retain / revise / discard.
import type { Command } from "commander";
import { type ActionFor, collect, NO_PING_HELP } from "./action.ts";
import { settingOption } from "./settings.ts";

export function registerCalibrate(program: Command, action: ActionFor): void {
  program
    .command("calibrate")
    .description(
      "calibrate tasks: n trials per cell, pass rates with Wilson intervals, retain / revise / discard",
    )
    .argument("[task...]", "task ids or quoted globs (bom-*) (default: every valid task)")
    .option("-n <count>", "trials per cell (default 5, or calibration.n in kgate.config.json)")
    .option("--cell <spec>", "add or replace a cell: name=agent:condition[>=t|<=t|=0] (repeatable)", collect)
    .option("--threshold <spec>", "a cell's requirement, e.g. frontier+A>=0.6 (repeatable)", collect)
    .option("--frontier <agent>", "agent configuration for the frontier cells")
    .option("--mid <agent>", "agent configuration for the mid cells")
    .option("--no-controls", "leave out the perturbed-artefact control cells")
    .option(
      "--monitor",
      "after each trial ask the KEEP/WITHDRAW and BET/NO_BET questions (built-in loop or installed harness)",
    )
    .option(
      "--prospective",
      "before each -A trial ask ANSWER_DIRECTLY / REQUEST_SPEC / DECLINE (such trials leave the -A rate)",
    )
    .option("--payoff <file>", "payoff schedule of the prospective choice (JSON; default 1/0, 0.5/0.1, 0.25)")
    .addOption(
      settingOption("concurrency", "calibrate", "trials in flight at once", {
        from: "calibration.concurrency in kgate.config.json",
      }),
    )
    .option(
      "--provider-concurrency <spec>",
      "trials in flight per provider, e.g. anthropic=2 (repeatable)",
      collect,
    )
    .option("--sequential", "add trials to undecided cells until decided at the stated confidence or capped")
    .option("--cap <count>", "most valid trials per cell under --sequential (default 20)")
    .option("--confidence <c>", "confidence of sequential decisions (default 0.95)")
    .option(
      "--cross [agents]",
      "add the crossed +A cells <frontier model in mid harness>,<mid model in frontier harness> (default frontier-x-mid,mid-x-frontier) and report model vs harness effects",
    )
    .option(
      "--strict",
      "a clause met by one trial makes the decision revise (default: retain, flagged borderline)",
    )
    .option(
      "--no-curtail",
      "run every planned trial (default: skip trials that no outcome could make change a task's decision or flag)",
    )
    .option(
      "--estimate",
      "print trials, tokens and cost per cell and in total, then exit (no trial, no model call)",
    )
    .option(
      "--max-cost <usd>",
      "cost ceiling in USD, kept in the plan: a trial starts only if its worst case (token caps at the prices) fits; --resume <run> --max-cost <more> raises it",
    )
    .option(
      "--resume <run>",
      "run the missing trials of an existing run (its plan is kept, cost ceiling included)",
    )
    .option("--run-id <id>", "id of the new run (default: a timestamp)")
    .option("--no-ping", NO_PING_HELP)
    .option("--json", "print the summary as JSON instead of Table 1")
    .action(action("calibrate"));
}
