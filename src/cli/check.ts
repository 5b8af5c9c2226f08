// The CLI's `kgate check [task...]`: the curator's pre-flight.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";
import { settingOption } from "./settings.ts";

export function registerCheck(program: Command, action: ActionFor): void {
  program
    .command("check")
    .description(
      "pre-flight of tasks before any model call: schema, digests, verifier determinism, oracle and noop in the sandbox, the gate (default and perturbed answers fail, compressed passes), leak audit",
    )
    .argument("[task...]", "task ids or quoted globs (bom-*) (default: every task)")
    .option("--no-sandbox", "skip the oracle and noop trials (no Docker needed)")
    .addOption(
      settingOption("concurrency", "check", "tasks checked side by side, each with its sandbox trials"),
    )
    .option(
      "--judge-repeats <k>",
      "judge calibration: repeats of each judgement, which must agree (default 3)",
    )
    .option(
      "--no-ping",
      "do not ping the judges' endpoints before the judge calibration (by default one that does not answer makes it unavailable)",
    )
    .option("--json", "machine-readable output")
    .action(action("check"));
}
