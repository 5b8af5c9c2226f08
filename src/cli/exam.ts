// The CLI's `kgate exam [pool]`: exams of N items or tasks under one shared token budget.
import type { Command } from "commander";
import { type ActionFor, NO_PING_HELP } from "./action.ts";
import { settingOption } from "./settings.ts";

export function registerExam(program: Command, action: ActionFor): void {
  program
    .command("exam")
    .description(
      "exams of N items or tasks under one shared token budget: points, orderings, prompts; effort attribution and its correlations",
    )
    .argument("[pool]", "item pool: items/<pool>.jsonl, or a path to a .jsonl file")
    .option("--tasks <ids>", "a task exam instead: library tasks (comma-separated, or all), N in one sandbox")
    .option("--inline-tasks <ids>", "an exam of inline tasks instead: library tasks in one reasoning turn")
    .option(
      "--condition <condition>",
      "condition of a task or inline-task exam's tasks: +A, -A or variant:<name>",
      "+A",
    )
    .option("--agent <name>", "agent configuration in kgate.config.json (a built-in-loop one for task exams)")
    .option("--n <sizes>", "exam sizes N, comma-separated", "5,10,20")
    .option("--exams <count>", "base exams drawn per size (the analysis averages over them)", "5")
    .option(
      "--scheme <schemes>",
      "point schemes: fixed, random, aligned, reversed (comma-separated)",
      "fixed",
    )
    .option("--order <orders>", "orderings: random, ascending, descending (comma-separated)", "random")
    .option("--prompt <prompts>", "prompts: baseline, planning (comma-separated)", "baseline")
    .option(
      "--name-questions",
      'item and inline-task exams: the prompt also asks the model to name each question it works on ("Q3"), which effort attribution reads (off, as in the protocol)',
    )
    .option(
      "--budget <tokens>",
      "B: generated tokens of an item exam's reasoning turn; all tokens of a task exam's session",
    )
    .option(
      "--tau <tokens>",
      "work-set threshold: a unit is worked on when it got at least tau tokens (default 16)",
    )
    .option("--seed <n>", "seed of the draws, points and orderings", "2")
    .option(
      "--reference <file>",
      "reference run (JSONL: id, accuracy, tokens): value density and measured difficulty",
    )
    .option(
      "--make-reference <file>",
      "instead of exams, write the reference run of the pool to <file> (each unit alone, budget B; a task in its own sandbox)",
    )
    .option("--trials <count>", "trials per unit of --make-reference (accuracy = passes / trials)", "3")
    .addOption(settingOption("concurrency", "exam", "exams (or --make-reference trials) in flight at once"))
    .option("--run-id <id>", "id of the new run (default: a timestamp)")
    .option(
      "--resume <run>",
      "run the missing or failed exams of a run (refused if the pool or agent changed)",
    )
    .option(
      "--estimate",
      "print the exams, tokens and cost per exam size and prompt (from earlier records, else an upper bound) and exit: no exam runs",
    )
    .option(
      "--max-cost <usd>",
      "a hard cost ceiling: an exam starts only if its worst case fits; --resume <run> --max-cost <more> continues",
    )
    .option("--no-ping", NO_PING_HELP)
    .option("--json", "print the report as JSON")
    .action(action("exam"));
}
