// The CLI's protocol verbs with the longest option lists, `exam` and `triage` (with `triage score`),
// declared apart from the router in cli.ts; their actions hand the parsed line back to it.
import type { Command } from "commander";

/** What cli.ts gives each verb: an action that invokes the verb's module with the parsed line. */
export type ActionFor = (verb: string) => (...args: unknown[]) => Promise<void>;

/** A repeatable option: every value, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function addExamCommand(program: Command, action: ActionFor): void {
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
    .option("--concurrency <count>", "exams (or --make-reference trials) in flight at once (default 2)")
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
    .option("--json", "print the report as JSON")
    .action(action("exam"));
}

export function addTriageCommands(
  program: Command,
  action: ActionFor,
  score: (command: Command) => Promise<void>,
): void {
  const triage = program
    .command("triage")
    .description(
      "portfolio triage under a token budget (TRIAGE) on an item pool or gated tasks: phase 0, plans per alpha x framing x r, scores under regimes U and E",
    )
    .argument(
      "[pool]",
      "items/<pool>.jsonl, a path to a .jsonl file, tasks:<id>,<id> (gated tasks, -A as unsolvable) or inline:<id>,<id> (the same in their inline form)",
    )
    .option(
      "--agent <name>",
      "agent configuration (kgate.config.json) that runs the units and plans (required)",
    )
    .option("--alpha <list>", "budget fractions of the phase-0 total (default 0.25,0.5,0.75,1)", collect)
    .option("--framing <list>", "plan framings: neutral, agent, exam (default all three)", collect)
    .option("--inject <list>", "unsolvable injection ratios r in [0, 1] (default 0)", collect)
    .option("--seed <n>", "seed of the injection and of the random baseline (default 0)")
    .option(
      "--unit-cap <tokens>",
      "output-token cap of a phase-0 item or inline task (default 16384; sandboxed tasks use the configuration's token budget)",
    )
    .option("--plan-tokens <tokens>", "max_tokens of a plan reply (default 4096)")
    .option("--concurrency <count>", "phase-0 units (and plans) in flight at once (default 2)")
    .option("--run-id <id>", "id of the new run (default: a timestamp)")
    .option("--resume <run>", "finish an interrupted run: missing units and plans only, its settings kept")
    .option(
      "--live",
      "also run regimes E and U live: each planned unit again, E with its allocation as its limit (an item's max_tokens, a task agent's output-token budget), U as in phase 0 capped at what is left of B",
    )
    .option(
      "--resolve",
      "budget re-solve: as --live's E, with the allocation also stated (in an item's or inline task's prompt, in a task agent's system prompt)",
    )
    .option(
      "--estimate",
      "print tokens and cost per phase-0 unit and for the plans (from earlier records, else an upper bound) and exit: nothing runs",
    )
    .option(
      "--max-cost <usd>",
      "a hard cost ceiling over phase-0 units and plans (not with --live or --resolve); --resume <run> --max-cost <more> continues",
    )
    .option("--json", "print the summary as JSON instead of Markdown")
    .action(action("triage"));
  triage
    .command("score")
    .description(
      "re-score a saved plan offline: knapsack oracle, random baseline, V / eta / regret under U and E",
    )
    .requiredOption("--phase0 <file>", 'phase-0 results, JSON lines {"id", "cost", "correct"}')
    .requiredOption("--plan <file>", 'the plan, {"plan": [{"id", "tokens"}, ...]} in execution order')
    .requiredOption("--budget <tokens>", "the token budget B")
    .option(
      "--seed <n>",
      "seed of the random baseline's permutations (pools over 9 units); default: the seed in the run's triage.json beside --phase0, else 0",
    )
    .option("--json", "machine-readable output")
    // `triage` owns --json too and parses it first: read the options with the parent's merged in.
    .action((_options: unknown, command: Command) => score(command));
}
