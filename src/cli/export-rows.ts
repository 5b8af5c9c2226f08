// The CLI's `kgate export rows`: single-turn rows of tasks for trainers, with a Python reward module.
import { type Command, Option } from "commander";
import { type ActionFor, collect } from "./action.ts";

/** `export rows` under the `export` command (registerExport's). */
export function registerExportRows(exporter: Command, action: ActionFor): void {
  exporter
    .command("rows")
    .description(
      "single-turn rows for trainers (verl's Parquet, or JSONL) with a Python reward module, a manifest and a split by task",
    )
    .argument("[task...]", "task ids (default: every task, or every task of --from)")
    .requiredOption("--out <dir>", "folder to write the rows, the reward module and the manifest into")
    .addOption(
      new Option("--format <format>", "verl: Parquet; jsonl: JSON lines")
        .choices(["verl", "jsonl"])
        .default("verl"),
    )
    .option("--from <run>", "a calibration run: its decision and Wilson bounds per task go into the manifest")
    .addOption(
      new Option("--only <which>", "with --from: only the tasks the run retained").choices(["retained"]),
    )
    .option("--condition <condition>", "only this condition (+A, -A, variant:<name>; repeatable)", collect)
    .addOption(
      new Option(
        "--reward <scheme>",
        "binary: 1 for kgate's pass; ignorance-aware: the prospective choice's payoffs (-A rows included)",
      )
        .choices(["binary", "ignorance-aware"])
        .default("binary"),
    )
    .option(
      "--payoff <file>",
      "the payoff schedule of --reward ignorance-aware (default: docs/monitoring.md's)",
    )
    .option("--split <splits>", "eval=0.2[,test=0.1]: whole tasks to each split, the rest to train")
    .option("--seed <n>", "the split's seed", "0")
    .option("--force", "replace the folder's content")
    .option("--json", "machine-readable output")
    .action(action("export.rows"));
}
