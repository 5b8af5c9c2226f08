// `kgate sandbox build|doctor|reap`: build the sandbox image, say what is missing, remove leftovers.
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError, usageOrBug } from "../errors.ts";
import { ensureSandboxImage, planImage, reapDeadRuns, runDoctor } from "../sandbox/index.ts";
import type { CommandContext } from "./context.ts";

interface JsonOption {
  json?: boolean;
}

export async function build(ctx: CommandContext, options: JsonOption): Promise<number> {
  const started = performance.now();
  let tag: string;
  try {
    tag = await ensureSandboxImage(ctx.paths, {
      force: true,
      onProgress: (line) => ctx.stderr.write(`${pc.dim("sandbox:")} ${line}\n`),
    });
  } catch (err) {
    throw new UsageError(`the sandbox image could not be built: ${(err as Error).message}`);
  }
  const plan = planImage(ctx.paths);
  const seconds = (performance.now() - started) / 1000;
  if (options.json) {
    ctx.stdout.write(
      `${JSON.stringify({ tag, digest: plan.digest, context: plan.contextDir, seconds }, null, 2)}\n`,
    );
  } else {
    ctx.stdout.write(`${tag}\n`);
  }
  return EXIT_OK;
}

export async function doctor(ctx: CommandContext, options: JsonOption): Promise<number> {
  const checks = await runDoctor(ctx.paths);
  const ok = checks.every((c) => c.ok);
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ ok, checks }, null, 2)}\n`);
  } else {
    for (const c of checks) {
      ctx.stdout.write(`${c.ok ? pc.green("ok     ") : pc.red("missing")} ${c.name}: ${c.detail}\n`);
      if (c.fix) ctx.stdout.write(`        fix: ${c.fix}\n`);
    }
  }
  return ok ? EXIT_OK : EXIT_FAILED;
}

export async function reap(ctx: CommandContext, options: JsonOption): Promise<number> {
  let result: Awaited<ReturnType<typeof reapDeadRuns>>;
  try {
    result = await reapDeadRuns();
  } catch (err) {
    throw usageOrBug(err);
  }
  if (options.json) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    for (const c of result.removed)
      ctx.stdout.write(`removed ${c.id.slice(0, 12)} (run ${c.run}, trial ${c.trial})\n`);
    for (const folder of result.folders) ctx.stdout.write(`removed ${folder}\n`);
    ctx.stdout.write(
      `${result.removed.length} leftover container(s) and ${result.folders.length} leftover folder(s) removed\n`,
    );
  }
  return EXIT_OK;
}
