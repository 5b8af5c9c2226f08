// The CLI's `kgate monitor analyse <dir>`: the Metacognitive Monitoring Battery's analysis.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerMonitor(program: Command, action: ActionFor): void {
  const monitor = program
    .command("monitor")
    .description(
      "metacognitive monitoring: KEEP/WITHDRAW and BET questions, the prospective choice, analysis",
    );
  monitor
    .command("analyse")
    .description(
      "the Metacognitive Monitoring Battery's analysis of its published response CSVs (<dir>/<track folder>/<model>.csv), or of a kgate run's monitored trials; exit 1 when a row is unreadable",
    )
    .argument(
      "<dir>",
      "folder holding the track folders (Meta Cog/, prospective/, ...), or a run (id or folder)",
    )
    .option(
      "--csv",
      "print the per-track table as CSV (model,track,accuracy,kc_rate,ki_rate,withdraw_delta,n_correct,n_incorrect)",
    )
    .option(
      "--leaderboard",
      "print the battery's leaderboard as CSV (model,accuracy_rank,mean_withdraw_delta,metacognition_rank,mean_accuracy,profile)",
    )
    .option(
      "--profile-rule <rule>",
      "stated: the battery's stated profile rule; script: the thresholds of its leaderboard.py (A also needs |delta| < 15, B without the DECLINE >= 90% alternative)",
      "stated",
    )
    .option("--html <file>", "also write the tables as an HTML page")
    .option("--seed <n>", "seed of the bootstrap intervals", "42")
    .option("--resamples <n>", "bootstrap resamples", "2000")
    .option("--json", "machine-readable output")
    .action(action("monitor.analyse"));
}
