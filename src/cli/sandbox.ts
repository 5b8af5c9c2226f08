// The CLI's `kgate sandbox build|doctor|reap`: the sandbox provider's image, diagnosis and clean-up.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerSandbox(program: Command, action: ActionFor): void {
  const sandbox = program
    .command("sandbox")
    .description("the Docker sandbox: build the image, diagnose, clean up");
  const sandboxVerb = (name: "build" | "doctor" | "reap", description: string) =>
    sandbox
      .command(name)
      .description(description)
      .option("--json", "machine-readable output")
      .action(action(`sandbox.${name}`));
  sandboxVerb("build", "build the sandbox image now (it is otherwise built on first use and cached)");
  sandboxVerb(
    "doctor",
    "check the Docker daemon, permissions, image and base, and say how to fix what is missing",
  );
  sandboxVerb("reap", "remove containers and temp folders left behind by kgate processes that are gone");
}
