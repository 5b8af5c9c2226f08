// `kgate sandbox build|doctor|reap`: build the sandbox image, say what is missing, remove leftovers.
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import {
  type ConfiguredHost,
  configuredHosts,
  type DoctorCheck,
  planImage,
  type ReapResult,
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

interface HostChecks {
  host: string;
  endpoint: string;
  capacity: number | null;
  ok: boolean;
  checks: DoctorCheck[];
}

export async function doctor(ctx: CommandContext, options: JsonOption): Promise<number> {
  const hosts: ConfiguredHost[] = withConfig(() => configuredHosts(ctx.paths));
  const results: HostChecks[] = await Promise.all(
    hosts.map(async (h) => {
      let checks: DoctorCheck[];
      try {
        checks = await h.doctor();
      } catch (err) {
        checks = [{ name: "daemon", ok: false, detail: (err as Error).message }];
      }
      if (h.capacity !== null)
        checks.push({ name: "capacity", ok: true, detail: `${h.capacity} trial(s) at once` });
      return {
        host: h.name,
        endpoint: h.endpoint,
        capacity: h.capacity,
        ok: checks.every((c) => c.ok),
        checks,
      };
    }),
  );
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

export async function reap(ctx: CommandContext, options: JsonOption): Promise<number> {
  const hosts = withConfig(() => configuredHosts(ctx.paths));
  const results: Array<ReapResult & { host: string }> = [];
  for (const h of hosts) {
    try {
      results.push({ host: h.name, ...(await h.reap()) });
    } catch (err) {
      throw new UsageError(`host ${h.name}: ${(err as Error).message}`);
    }
  }
  const removed = results.flatMap((r) => r.removed.map((c) => ({ ...c, host: r.host })));
  const folders = results.flatMap((r) => r.folders);
  const volumes = results.flatMap((r) => r.volumes.map((name) => ({ name, host: r.host })));
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
