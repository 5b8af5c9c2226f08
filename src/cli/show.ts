// The CLI's `kgate show <run>[/<trial>]`: a record and trajectory, readably.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerShow(program: Command, action: ActionFor): void {
  program
    .command("show")
    .description("print a trial's record and trajectory readably (<run>/<trial>), or a run's trials (<run>)")
    .argument("<ref>", "<run> or <run>/<trial> (as in runs/)")
    .option("--full", "print tool outputs and model texts in full")
    .option("--json", "machine-readable output")
    .action(action("show"));
}
