// The CLI's `kgate agents`: the configurations and whether each can run here.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerAgents(program: Command, action: ActionFor): void {
  program
    .command("agents")
    .description(
      "list agent configurations and whether each can run here (key set, image built, endpoint answering)",
    )
    .option("--build", "build the images the configured agents need (harness image included)")
    .option("--offline", "do not ping the endpoints (then nothing is reported ready)")
    .option("--json", "machine-readable output")
    .action(action("agents"));
}
