// The CLI's `kgate export harbor|benchflow|trajectories|rows`: tasks in another harness's layout, a run's
// trajectories as ATIF, rows for trainers (export-rows.ts).
import { type Command, Option } from "commander";
import { type ActionFor, collect } from "./action.ts";
import { registerExportRows } from "./export-rows.ts";

export function registerExport(program: Command, action: ActionFor): void {
  const exporter = program
    .command("export")
    .description(
      "write tasks in another harness's task layout (one folder per condition), or a run's trajectories in Harbor's ATIF",
    );
  const exportVerb = (layout: "harbor" | "benchflow", description: string) =>
    exporter
      .command(layout)
      .description(description)
      .argument("[task...]", "task ids or quoted globs (bom-*) (default: every task)")
      .requiredOption("--out <dir>", "folder to write the exported tasks into")
      .option("--condition <condition>", "only this condition (+A, -A, variant:<name>; repeatable)", collect)
      .option("--force", "replace exported folders that already exist")
      .option("--json", "machine-readable output")
      .action(action(`export.${layout}`));
  exportVerb("harbor", "Harbor / Terminal-Bench task folders: +A, -A and each variant")
    .option(
      "--for-training",
      "for trainers: images built and pushed (--push), pinned by digest; a separate verifier; reward.json with metrics",
    )
    .option(
      "--push <registry>",
      "--for-training: the registry the images go to (credentials: Docker's config.json)",
    )
    .option(
      "--from <run>",
      "--for-training: a calibration run: its decision and Wilson bounds per task in [metadata]",
    )
    .addOption(
      new Option("--only <which>", "with --from: only the tasks the run retained").choices(["retained"]),
    );
  exportVerb(
    "benchflow",
    "BenchFlow / SkillsBench task folders (native layout: task.md, oracle/, verifier/): with the artefact as a skill, and without",
  ).option(
    "--split",
    "Harbor's split layout (task.toml, instruction.md, solution/, tests/) with the skill instead",
  );
  exporter
    .command("trajectories")
    .description("every trial of a run as a trajectory in Harbor's ATIF, with its verdict and cost")
    .argument("<run>", "run id or run directory")
    .requiredOption("--format <format>", "atif (the only format)")
    .option("--out <dir>", "folder to write <trial>.json into (default: <run>/atif)")
    .option("--json", "machine-readable output")
    .action(action("export.trajectories"));
  registerExportRows(exporter, action);
}
