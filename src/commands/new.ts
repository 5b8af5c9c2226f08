// `kgate new <id>`: scaffolds every place of a task so a curator edits instead of copying.
import { UsageError } from "../errors.ts";
import { type GateKind, scaffoldTask } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

export interface NewOptions {
  gate: GateKind;
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
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ id, ...result }, null, 2)}\n`);
  } else {
    ctx.stdout.write(`created task "${id}" (${options.gate} gate, canary ${result.canary}):\n`);
    for (const file of result.created) ctx.stdout.write(`  ${file}\n`);
    ctx.stdout.write("next: edit the TODOs, then run `kgate list` and `kgate check`\n");
  }
  return 0;
}
