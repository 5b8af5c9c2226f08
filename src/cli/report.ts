// The CLI's `kgate report <run>`: Table 1, chart and HTML of a calibration run.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerReport(program: Command, action: ActionFor): void {
  program
    .command("report")
    .description("Table 1, chart and HTML page of a calibration run, from its plan and records")
    .argument("<run>", "run id (a folder of runs/) or a run directory")
    .option("--out <dir>", "write the report files here instead of the run directory")
    .option("--json", "print the summary as JSON instead of the Markdown table")
    .option(
      "--format <format>",
      "what to print: md (Table 1 and the rest), json, csv or latex (Table 1)",
      "md",
    )
    .action(action("report"));
}
