// The CLI's `kgate audit [task...]`: the static leak audit.
import { type Command, Option } from "commander";
import type { ActionFor } from "./action.ts";

export function registerAudit(program: Command, action: ActionFor): void {
  program
    .command("audit")
    .description(
      "static leak audit: does an instruction or environment give the gated knowledge away? (exit 1 on an error finding)",
    )
    .argument("[task...]", "task ids or quoted globs (bom-*) (default: every task)")
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "json", "sarif"]).default("text"),
    )
    .option("--json", "machine-readable output (same as --format json)")
    .option("--staged", "audit the staged content (git index) of every task the staged change touches")
    .option("--show", "reveal matched values (hidden by default: they are the secrets)")
    .action(action("audit"));
}
