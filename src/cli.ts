// The CLI router: parses argv with commander and lazily imports one module per verb.
import { Argument, type Command, CommanderError, Option } from "commander";
import { checkRequiredOptions, KgateCommand } from "./cli-command.ts";
import { addExamCommand, addTriageCommands, collect } from "./cli-protocols.ts";
import type { CommandContext } from "./commands/context.ts";
import { EXIT_USAGE, ExitError, REPORT_BUGS } from "./errors.ts";
import { kgateVersion } from "./package-info.ts";
import { findProjectRoot, projectPaths } from "./project.ts";

type Runner = (ctx: CommandContext, ...args: never[]) => Promise<number>;

/** Every verb's module, imported only when that verb runs (`sandbox build` is `sandbox.build`). */
export const VERBS: Record<string, () => Promise<Runner>> = {
  list: () => import("./commands/list.ts").then((m) => m.run),
  new: () => import("./commands/new.ts").then((m) => m.run),
  run: () => import("./commands/run.ts").then((m) => m.run),
  agents: () => import("./commands/agents.ts").then((m) => m.run),
  show: () => import("./commands/show.ts").then((m) => m.run),
  "sandbox.build": () => import("./commands/sandbox.ts").then((m) => m.build),
  "sandbox.doctor": () => import("./commands/sandbox.ts").then((m) => m.doctor),
  "sandbox.reap": () => import("./commands/sandbox.ts").then((m) => m.reap),
  check: () => import("./commands/check.ts").then((m) => m.run),
  audit: () => import("./commands/audit.ts").then((m) => m.run),
  hook: () => import("./commands/hook.ts").then((m) => m.run),
  calibrate: () => import("./commands/calibrate.ts").then((m) => m.run),
  report: () => import("./commands/report.ts").then((m) => m.run),
  "probe.recite": () => import("./commands/probe.ts").then((m) => m.reciteCommand),
  "probe.compress": () => import("./commands/probe.ts").then((m) => m.compressCommand),
  "probe.canary": () => import("./commands/probe.ts").then((m) => m.canaryCommand),
  "export.harbor": () => import("./commands/export.ts").then((m) => m.harbor),
  "export.benchflow": () => import("./commands/export.ts").then((m) => m.benchflow),
  "export.trajectories": () => import("./commands/export-trajectories.ts").then((m) => m.run),
  "export.rows": () => import("./commands/export-rows.ts").then((m) => m.rows),
  "import.harbor": () => import("./commands/import.ts").then((m) => m.run),
  exam: () => import("./commands/exam.ts").then((m) => m.run),
  "monitor.analyse": () => import("./commands/monitor.ts").then((m) => m.analyse),
  triage: () => import("./commands/triage.ts").then((m) => m.run),
  "triage.score": () => import("./commands/triage.ts").then((m) => m.score),
  view: () => import("./commands/view.ts").then((m) => m.run),
};

/** What a parsed command line asks for: a verb, its positional arguments, then its options object. */
export type Invoke = (verb: string, args: unknown[], ctx: CommandContext) => Promise<number>;

/** Runs the verb's module: the real behaviour behind the parser. */
export const invokeVerb: Invoke = async (verb, args, ctx) => {
  const load = VERBS[verb];
  if (!load) throw new Error(`no module for the verb "${verb}"`);
  const run = (await load()) as (ctx: CommandContext, ...rest: unknown[]) => Promise<number>;
  return run(ctx, ...args);
};

function context(program: Command): CommandContext {
  const root = program.opts<{ root?: string }>().root;
  return { paths: projectPaths(root ?? findProjectRoot()), stdout: process.stdout, stderr: process.stderr };
}

/** The parser: argv to (verb, arguments, options), handed to `invoke` (tests pass a recorder). */
export function buildProgram(onResult: (code: number) => void, invoke: Invoke = invokeVerb): Command {
  const program = new KgateCommand("kgate")
    .description(
      "Build knowledge-gated, verifiable tasks for LLM agents and calibrate them in Docker sandboxes",
    )
    .option("--root <dir>", "project root (default: nearest folder with kgate.config.json or tasks/)")
    .version(kgateVersion(), "-V, --version", "print kgate's version (the one records name in provenance)")
    .showHelpAfterError()
    .hook("preAction", checkRequiredOptions)
    .exitOverride();

  // commander passes the positional arguments, then options, then the command itself.
  const action =
    <A extends unknown[]>(verb: string) =>
    async (...args: A) => {
      onResult(await invoke(verb, args.slice(0, -1), context(program)));
    };

  program
    .command("list")
    .description("list tasks with their validity, gate, digests and problems")
    .option("--json", "machine-readable output")
    .action(action("list"));

  program
    .command("new")
    .description(
      "scaffold a new task: task.json, instruction, environment, solution, artefact, verifier, audit",
    )
    .argument("<id>", "task id (lower-case letters, digits, dashes)")
    .addOption(
      new Option("--gate <kind>", "gate kind").choices(["convention", "operator"]).default("convention"),
    )
    .addOption(
      new Option("--output <format>", "format of the task's output")
        .choices(["csv", "json", "text"])
        .default("csv"),
    )
    .option("--title <title>", "task title")
    .option("--domain <domain>", "task domain")
    .option("--json", "machine-readable output")
    .action(action("new"));

  program
    .command("run")
    .description("run N trials of one task under one condition with one agent; one record per trial")
    .argument("<task>", "task id")
    .requiredOption(
      "--agent <name>",
      "agent: oracle, noop, or a configuration in kgate.config.json (see kgate agents)",
    )
    .option("--condition <condition>", "+A, -A or variant:<name>", "+A")
    .option("-n <count>", "number of trials", "1")
    .option("--concurrency <count>", "trials in flight at once", "1")
    .option("--retries <count>", "extra attempts after a transient infrastructure error", "1")
    .option("--run-id <id>", "append to this run (default: a new run id)")
    .option(
      "--monitor",
      "after each trial ask the KEEP/WITHDRAW and BET/NO_BET questions (built-in loop or installed harness)",
    )
    .option(
      "--prospective",
      "before each -A trial ask ANSWER_DIRECTLY / REQUEST_SPEC / DECLINE (built-in loop or installed harness)",
    )
    .option("--payoff <file>", "payoff schedule of the prospective choice (JSON; default 1/0, 0.5/0.1, 0.25)")
    .option("--json", "machine-readable output")
    .action(action("run"));

  program
    .command("agents")
    .description(
      "list agent configurations and whether each can run here (key set, image built, endpoint answering)",
    )
    .option("--build", "build the images the configured agents need (harness image included)")
    .option("--offline", "do not ping the endpoints (then nothing is reported ready)")
    .option("--json", "machine-readable output")
    .action(action("agents"));

  program
    .command("show")
    .description("print a trial's record and trajectory readably (<run>/<trial>), or a run's trials (<run>)")
    .argument("<ref>", "<run> or <run>/<trial> (as in runs/)")
    .option("--full", "print tool outputs and model texts in full")
    .option("--json", "machine-readable output")
    .action(action("show"));

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

  program
    .command("check")
    .description(
      "pre-flight of tasks before any model call: schema, digests, verifier determinism, oracle and noop in the sandbox, the gate (default and perturbed answers fail, compressed passes), leak audit",
    )
    .argument("[task...]", "task ids or quoted globs (bom-*) (default: every task)")
    .option("--no-sandbox", "skip the oracle and noop trials (no Docker needed)")
    .option("--concurrency <n>", "tasks checked side by side, each with its sandbox trials (default 2)")
    .option(
      "--judge-repeats <k>",
      "judge calibration: repeats of each judgement, which must agree (default 3)",
    )
    .option("--json", "machine-readable output")
    .action(action("check"));

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

  program
    .command("hook")
    .description("install or remove a git pre-commit hook that runs `kgate audit --staged` (husky-aware)")
    .addArgument(new Argument("<action>", "what to do").choices(["install", "uninstall"]))
    .action(action("hook"));

  program
    .command("calibrate")
    .description(
      "calibrate tasks: n trials per cell, pass rates with Wilson intervals, retain / revise / discard",
    )
    .argument("[task...]", "task ids or quoted globs (bom-*) (default: every valid task)")
    .option("-n <count>", "trials per cell (default 5, or calibration.n in kgate.config.json)")
    .option("--cell <spec>", "add or replace a cell: name=agent:condition[>=t|<=t|=0] (repeatable)", collect)
    .option("--threshold <spec>", "a cell's requirement, e.g. frontier+A>=0.6 (repeatable)", collect)
    .option("--frontier <agent>", "agent configuration for the frontier cells")
    .option("--mid <agent>", "agent configuration for the mid cells")
    .option("--no-controls", "leave out the perturbed-artefact control cells")
    .option(
      "--monitor",
      "after each trial ask the KEEP/WITHDRAW and BET/NO_BET questions (built-in loop or installed harness)",
    )
    .option(
      "--prospective",
      "before each -A trial ask ANSWER_DIRECTLY / REQUEST_SPEC / DECLINE (such trials leave the -A rate)",
    )
    .option("--payoff <file>", "payoff schedule of the prospective choice (JSON; default 1/0, 0.5/0.1, 0.25)")
    .option("--concurrency <count>", "trials in flight at once (default 2)")
    .option(
      "--provider-concurrency <spec>",
      "trials in flight per provider, e.g. anthropic=2 (repeatable)",
      collect,
    )
    .option("--sequential", "add trials to undecided cells until decided at the stated confidence or capped")
    .option("--cap <count>", "most valid trials per cell under --sequential (default 20)")
    .option("--confidence <c>", "confidence of sequential decisions (default 0.95)")
    .option(
      "--cross [agents]",
      "add the crossed +A cells <frontier model in mid harness>,<mid model in frontier harness> (default frontier-x-mid,mid-x-frontier) and report model vs harness effects",
    )
    .option(
      "--strict",
      "a clause met by one trial makes the decision revise (default: retain, flagged borderline)",
    )
    .option(
      "--no-curtail",
      "run every planned trial (default: skip trials that no outcome could make change a task's decision or flag)",
    )
    .option(
      "--estimate",
      "print trials, tokens and cost per cell and in total, then exit (no trial, no model call)",
    )
    .option(
      "--max-cost <usd>",
      "cost ceiling in USD, kept in the plan: a trial starts only if its worst case (token caps at the prices) fits; --resume <run> --max-cost <more> raises it",
    )
    .option(
      "--resume <run>",
      "run the missing trials of an existing run (its plan is kept, cost ceiling included)",
    )
    .option("--run-id <id>", "id of the new run (default: a timestamp)")
    .option("--json", "print the summary as JSON instead of Table 1")
    .action(action("calibrate"));

  addExamCommand(program, action);

  program
    .command("report")
    .description("Table 1, chart and HTML page of a calibration run, from its plan and records")
    .argument("<run>", "run id (a folder of runs/) or a run directory")
    .option("--out <dir>", "write the report files here instead of the run directory")
    .option("--json", "print the summary as JSON instead of the Markdown table")
    .option(
      "--format <format>",
      "what to print: md (Table 1 and the rest), json, csv or latex (Table 1)",
      "md",
    )
    .action(action("report"));

  const probe = program
    .command("probe")
    .description("diagnostic probes as inline trials (one conversation, no tools, the data inline)");
  const probeVerb = (name: "recite" | "compress" | "canary", description: string) =>
    probe
      .command(name)
      .description(description)
      .argument("<task>", "task id")
      .requiredOption("--agent <name>", "a configuration in kgate.config.json (repeatable)", collect)
      .option("-n <count>", "inline trials per configuration", "5")
      .option("--max-env-bytes <bytes>", "most environment bytes to inline (default 262144)")
      .option("--concurrency <count>", "inline trials in flight at once", "2")
      .option(
        "--resume <run>",
        "run the trials of an earlier probe run that did not count (same task, agents and -n)",
      )
      .option("--run-id <id>", "id of the probe's run (default: a timestamp)")
      .option(
        "--estimate",
        "print the trials, tokens and cost per configuration (from earlier records, else an upper bound) and exit: no trial runs",
      )
      .option(
        "--max-cost <usd>",
        "a hard cost ceiling: a trial starts only if its worst case fits; --resume <run> --max-cost <more> continues",
      )
      .option("--json", "machine-readable output")
      .action(action(`probe.${name}`));
  probeVerb(
    "recite",
    "turn 1 the artefact and data inline, restate the conventions; turn 2 the outputs; names the failure layer (knowledge, application, harness)",
  ).option(
    "--against <run>",
    "a run with sandboxed +A trials of the same configurations (repeatable)",
    collect,
  );
  probeVerb(
    "compress",
    "model form of the compression curve: inline cells for the artefact, compressed variants, each convention section cut, 0 B; SVG like Fig. 3",
  );
  probeVerb(
    "canary",
    "without the artefact: continue its first line, state the private constants; a hit marks the task contaminated",
  ).option("--against <run>", "a run whose -A records' canary flags are shown beside (repeatable)", collect);

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
  exportVerb("harbor", "Harbor / Terminal-Bench task folders: +A, -A and each variant");
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

  exporter
    .command("rows")
    .description(
      "single-turn rows for trainers (verl's Parquet, or JSONL) with a Python reward module, a manifest and a split by task",
    )
    .argument("[task...]", "task ids (default: every task, or every task of --from)")
    .requiredOption("--out <dir>", "folder to write the rows, the reward module and the manifest into")
    .addOption(
      new Option("--format <format>", "verl: Parquet; jsonl: JSON lines")
        .choices(["verl", "jsonl"])
        .default("verl"),
    )
    .option("--from <run>", "a calibration run: its decision and Wilson bounds per task go into the manifest")
    .addOption(
      new Option("--only <which>", "with --from: only the tasks the run retained").choices(["retained"]),
    )
    .option("--condition <condition>", "only this condition (+A, -A, variant:<name>; repeatable)", collect)
    .addOption(
      new Option(
        "--reward <scheme>",
        "binary: 1 for kgate's pass; ignorance-aware: the prospective choice's payoffs (-A rows included)",
      )
        .choices(["binary", "ignorance-aware"])
        .default("binary"),
    )
    .option(
      "--payoff <file>",
      "the payoff schedule of --reward ignorance-aware (default: docs/monitoring.md's)",
    )
    .option("--split <splits>", "eval=0.2[,test=0.1]: whole tasks to each split, the rest to train")
    .option("--seed <n>", "the split's seed", "0")
    .option("--force", "replace the folder's content")
    .option("--json", "machine-readable output")
    .action(action("export.rows"));

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

  const monitor = program
    .command("monitor")
    .description(
      "metacognitive monitoring: KEEP/WITHDRAW and BET questions, the prospective choice, analysis",
    );
  monitor
    .command("analyse")
    .description(
      "the Metacognitive Monitoring Battery's analysis of its published response CSVs (<dir>/<track folder>/<model>.csv), or of a kgate run's monitored trials; exit 1 when a row is unreadable",
    )
    .argument(
      "<dir>",
      "folder holding the track folders (Meta Cog/, prospective/, ...), or a run (id or folder)",
    )
    .option(
      "--csv",
      "print the per-track table as CSV (model,track,accuracy,kc_rate,ki_rate,withdraw_delta,n_correct,n_incorrect)",
    )
    .option(
      "--leaderboard",
      "print the battery's leaderboard as CSV (model,accuracy_rank,mean_withdraw_delta,metacognition_rank,mean_accuracy,profile)",
    )
    .option(
      "--profile-rule <rule>",
      "stated: the battery's stated profile rule; script: the thresholds of its leaderboard.py (A also needs |delta| < 15, B without the DECLINE >= 90% alternative)",
      "stated",
    )
    .option("--html <file>", "also write the tables as an HTML page")
    .option("--seed <n>", "seed of the bootstrap intervals", "42")
    .option("--resamples <n>", "bootstrap resamples", "2000")
    .option("--json", "machine-readable output")
    .action(action("monitor.analyse"));

  addTriageCommands(program, action, (command) =>
    invoke("triage.score", [command.optsWithGlobals()], context(program)).then(onResult),
  );

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

  return program;
}

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = buildProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    if (err instanceof ExitError) {
      process.stderr.write(`kgate: ${err.message}\n`);
      return err.code;
    }
    // Anything else is kgate's own bug: the stack, and where to report it.
    process.stderr.write(`kgate: internal error: ${(err as Error).stack ?? String(err)}\n${REPORT_BUGS}\n`);
    return EXIT_USAGE;
  }
}
