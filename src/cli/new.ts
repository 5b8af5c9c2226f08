// The CLI's `kgate new <id>`: scaffold a task.
import { type Command, Option } from "commander";
import type { ActionFor } from "./action.ts";

export function registerNew(program: Command, action: ActionFor): void {
  program
    .command("new")
    .description(
      "scaffold a new task: task.json, instruction, environment, solution, artefact, verifier, audit",
    )
    .argument("<id>", "task id (lower-case letters, digits, dashes)")
    .addOption(
      new Option("--gate <kind>", "gate kind").choices(["convention", "operator"]).default("convention"),
    )
    .addOption(
      new Option("--output <format>", "format of the task's output")
        .choices(["csv", "json", "text"])
        .default("csv"),
    )
    .option("--title <title>", "task title")
    .option("--domain <domain>", "task domain")
    .option("--json", "machine-readable output")
    .action(action("new"));
}
