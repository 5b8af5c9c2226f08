// The CLI's `kgate probe recite|compress|canary <task>`: the diagnostic probes as inline trials.
import type { Command } from "commander";
import { type ActionFor, collect, NO_PING_HELP } from "./action.ts";
import { settingOption } from "./settings.ts";

export function registerProbe(program: Command, action: ActionFor): void {
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
      .addOption(settingOption("concurrency", "probe", "inline trials in flight at once"))
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
      .option("--no-ping", NO_PING_HELP)
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
}
