// `kgate import harbor <dir>`: a Harbor or BenchFlow task folder -> tasks/<id>/ (a kgate task
// skeleton to leak-audit and gate); prints what was written and what is left to the curator.
import { pc } from "../colours.ts";
import { EXIT_OK, usageOrBug } from "../errors.ts";
import { importHarborTask } from "../export/index.ts";
import type { CommandContext } from "./context.ts";

export interface ImportCommandOptions {
  id?: string;
  json?: boolean;
}

export async function run(ctx: CommandContext, dir: string, options: ImportCommandOptions): Promise<number> {
  let result: ReturnType<typeof importHarborTask>;
  try {
    result = importHarborTask(ctx.paths, dir, options.id);
  } catch (err) {
    throw usageOrBug(err);
  }
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return EXIT_OK;
  }
  ctx.stdout.write(`imported ${result.id} (${result.layout} layout) into ${result.taskDir}\n`);
  ctx.stdout.write(
    `  environment: ${result.environment.length} file(s); kept under harbor/: ${result.kept.join(", ")}\n`,
  );
  if (result.artefact) {
    ctx.stdout.write(
      `  artefact candidate: the skill(s) ${result.artefact.skills.join(", ")}, at ${result.artefact.path}\n`,
    );
  }
  if (result.outputs.length > 0) ctx.stdout.write(`  outputs: ${result.outputs.join(", ")}\n`);
  for (const warning of result.warnings) ctx.stderr.write(`${pc.yellow("warning")}: ${warning}\n`);
  const artefact = result.artefact ? "condense" : "write";
  ctx.stdout.write(
    `next (the curator's steps): ${artefact} artefacts/${result.id}/artefact.md, write its variants and verifiers/${result.id}.ts (a stub now), declare the gated items in audits/${result.id}.json, fill the TODOs of tasks/${result.id}/task.json; kgate check ${result.id} --no-sandbox names what is left\n`,
  );
  return EXIT_OK;
}
