// The CLI router: parses argv with commander (each verb's registration in src/cli/) and lazily imports
// one module per verb (src/commands/); the one place that exits.
import { type Command, CommanderError } from "commander";
import { registerVerbs } from "./cli/index.ts";
import { checkRequiredOptions, KgateCommand } from "./cli-command.ts";
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
  registerVerbs(program, action, (command) =>
    invoke("triage.score", [command.optsWithGlobals()], context(program)).then(onResult),
  );
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
