// The CLI's `kgate import harbor <dir>`: a Harbor or BenchFlow task folder as a kgate task skeleton.
import type { Command } from "commander";
import type { ActionFor } from "./action.ts";

export function registerImport(program: Command, action: ActionFor): void {
  program
    .command("import")
    .description("turn tasks of another harness into kgate task skeletons")
    .command("harbor")
    .description(
      "a Harbor or BenchFlow task folder -> tasks/<id>/ with instruction, environment, solution, outputs, the skills as artefact candidate and a verifier stub",
    )
    .argument("<dir>", "the task folder (holding task.toml + instruction.md, or BenchFlow's task.md)")
    .option("--id <id>", "kgate task id (default: the folder name)")
    .option("--json", "machine-readable output")
    .action(action("import.harbor"));
}
