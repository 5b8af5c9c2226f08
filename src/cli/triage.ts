// The CLI's `kgate triage [pool]` and `kgate triage score`: portfolio triage under a token budget.
import type { Command } from "commander";
import { type ActionFor, collect, NO_PING_HELP } from "./action.ts";
import { settingOption } from "./settings.ts";

export function registerTriage(
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
    .addOption(settingOption("concurrency", "triage", "phase-0 units (and plans) in flight at once"))
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
    .option("--no-ping", NO_PING_HELP)
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
