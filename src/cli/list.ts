// The CLI's `kgate list`: tasks with their validity, gate, digests and problems.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerList(program: Command, action: ActionFor): void {
  program
    .command("list")
    .description("list tasks with their validity, gate, digests and problems")
    .option("--json", "machine-readable output")
    .action(action("list"));
}
