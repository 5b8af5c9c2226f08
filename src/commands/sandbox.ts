// `kgate sandbox build|doctor|reap`: build the sandbox image, say what is missing, remove leftovers.
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import {
  type HostReport,
  imageSourceOf,
  loadSandboxConfig,
  reapLeftovers,
  SandboxConfigError,
  sandboxProviderFor,
} from "../sandbox/index.ts";
import type { CommandContext } from "./context.ts";

interface JsonOption {
  json?: boolean;
}

/** Builds the sandbox image on the configured provider (on a pool: the first host that answers). */
export async function build(ctx: CommandContext, options: JsonOption): Promise<number> {
  const started = performance.now();
  const provider = withConfig(() => sandboxProviderFor(ctx.paths));
  let tag: string;
  try {
    const onProgress = (line: string) => ctx.stderr.write(`${pc.dim("sandbox:")} ${line}\n`);
    tag = (await provider.prepareImage(ctx.paths, onProgress, { force: true })).ref;
  } catch (err) {
    throw new UsageError(`the sandbox image could not be built: ${(err as Error).message}`);
  }
  const source = imageSourceOf(ctx.paths, loadSandboxConfig(ctx.paths).image);
  const seconds = (performance.now() - started) / 1000;
  if (options.json) {
    const built =
      source.kind === "build" ? { digest: source.plan.digest, context: source.plan.contextDir } : {};
    ctx.stdout.write(`${JSON.stringify({ tag, ...built, seconds }, null, 2)}\n`);
  } else {
    ctx.stdout.write(`${tag}\n`);
  }
  return EXIT_OK;
}

/** A bad `sandbox` section of kgate.config.json, or a TLS file it names that is missing, is a usage error. */
function withConfig<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof SandboxConfigError || (err as NodeJS.ErrnoException).code === "ENOENT")
      throw new UsageError((err as Error).message);
    throw err;
  }
}

/** One host's checks as `doctor --json` prints them. */
interface HostChecks extends HostReport {
  ok: boolean;
}

/** The provider's checks on each of its hosts; a provider without checks of its own says so. */
export async function doctor(ctx: CommandContext, options: JsonOption): Promise<number> {
  const provider = withConfig(() => sandboxProviderFor(ctx.paths));
  const reports: HostReport[] = provider.doctor
    ? await provider.doctor(ctx.paths)
    : [
        {
          host: provider.host,
          endpoint: provider.host,
          capacity: null,
          checks: [
            { name: "provider", ok: true, detail: `the ${provider.name} provider has no checks of its own` },
          ],
        },
      ];
  const results: HostChecks[] = reports.map((r) => ({ ...r, ok: r.checks.every((c) => c.ok) }));
  const ok = results.every((r) => r.ok);
  if (options.json) {
    // One host keeps the single-host shape ({ ok, checks }); a pool adds every host's checks.
    const single = results.length === 1 ? { checks: results[0]!.checks } : {};
    ctx.stdout.write(`${JSON.stringify({ ok, ...single, hosts: results }, null, 2)}\n`);
  } else {
    for (const r of results) {
      if (results.length > 1) ctx.stdout.write(`${pc.bold(`host ${r.host}`)} (${r.endpoint})\n`);
      for (const c of r.checks) {
        ctx.stdout.write(`${c.ok ? pc.green("ok     ") : pc.red("missing")} ${c.name}: ${c.detail}\n`);
        if (c.fix) ctx.stdout.write(`        fix: ${c.fix}\n`);
      }
    }
  }
  return ok ? EXIT_OK : EXIT_FAILED;
}

/** What dead kgate processes left, on each host of the provider and in this machine's temp folders. */
export async function reap(ctx: CommandContext, options: JsonOption): Promise<number> {
  const provider = withConfig(() => sandboxProviderFor(ctx.paths));
  const { hosts, folders } = await reapLeftovers(provider);
  const failed = hosts.find((h) => h.error);
  if (failed) throw new UsageError(`host ${failed.host}: ${failed.error}`);
  const removed = hosts.flatMap((r) => r.removed.map((c) => ({ ...c, host: r.host })));
  const volumes = hosts.flatMap((r) => r.volumes.map((name) => ({ name, host: r.host })));
  if (options.json) ctx.stdout.write(`${JSON.stringify({ removed, folders, volumes }, null, 2)}\n`);
  else {
    for (const v of volumes) ctx.stdout.write(`removed volume ${v.name} on ${v.host}\n`);
    for (const c of removed)
      ctx.stdout.write(`removed ${c.id.slice(0, 12)} on ${c.host} (run ${c.run}, trial ${c.trial})\n`);
    for (const folder of folders) ctx.stdout.write(`removed ${folder}\n`);
    ctx.stdout.write(
      `${removed.length} leftover container(s) and ${folders.length} leftover folder(s) removed\n`,
    );
  }
  return EXIT_OK;
}
