// The CLI's `kgate view <run...>`: the trajectory viewer.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerView(program: Command, action: ActionFor): void {
  program
    .command("view")
    .description(
      "trajectory viewer over calibration runs: served on 127.0.0.1, or a static folder with --out",
    )
    .argument("<run...>", "run ids (folders of runs/) or run directories")
    .option("--out <dir>", "write a self-contained static folder instead of serving")
    .option("--port <port>", "port on 127.0.0.1 to serve on (default: a free one)")
    .option("--json", "machine-readable output (the URL, or the folder written)")
    .action(action("view"));
}
