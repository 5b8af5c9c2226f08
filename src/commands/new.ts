// `kgate new <id>`: scaffolds every place of a task so a curator edits instead of copying.
import { usageOrBug } from "../errors.ts";
import { type GateKind, type OutputFormat, scaffoldTask } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

export interface NewOptions {
  gate: GateKind;
  output?: OutputFormat;
  title?: string;
  domain?: string;
  json?: boolean;
}

export async function run(ctx: CommandContext, id: string, options: NewOptions): Promise<number> {
  let result: ReturnType<typeof scaffoldTask>;
  try {
    result = scaffoldTask(ctx.paths, {
      id,
      gate: options.gate,
      title: options.title,
      domain: options.domain,
      output: options.output,
    });
  } catch (err) {
    throw usageOrBug(err);
  }
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ id, ...result }, null, 2)}\n`);
  } else {
    const output = options.output ?? "csv";
    ctx.stdout.write(
      `created task "${id}" (${options.gate} gate, ${output} output, canary ${result.canary}):\n`,
    );
    for (const file of result.created) ctx.stdout.write(`  ${file}\n`);
    ctx.stdout.write(
      "next: fill in every TODO (`kgate check` fails while one is left), then run `kgate check`\n",
    );
  }
  return 0;
}
