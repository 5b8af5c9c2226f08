// `kgate import harbor <dir>`: a Harbor task folder -> tasks/<id>/ (a kgate task skeleton to
// leak-audit and gate); prints what was written and what is left to do.
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
  ctx.stdout.write(`imported ${result.id} into ${result.taskDir}\n`);
  ctx.stdout.write(
    `  environment: ${result.environment.length} file(s); kept under harbor/: ${result.kept.join(", ")}\n`,
  );
  for (const warning of result.warnings) ctx.stderr.write(`${pc.yellow("warning")}: ${warning}\n`);
  ctx.stdout.write(
    `next: write artefacts/${result.id}/artefact.md, verifiers/${result.id}.ts (a stub now) and audits/${result.id}.json, then kgate audit ${result.id}\n`,
  );
  return EXIT_OK;
}
