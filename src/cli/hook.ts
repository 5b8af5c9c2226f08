// The CLI's `kgate hook install|uninstall`: the pre-commit hook running `kgate audit --staged`.
import { Argument, type Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerHook(program: Command, action: ActionFor): void {
  program
    .command("hook")
    .description("install or remove a git pre-commit hook that runs `kgate audit --staged` (husky-aware)")
    .addArgument(new Argument("<action>", "what to do").choices(["install", "uninstall"]))
    .action(action("hook"));
}
