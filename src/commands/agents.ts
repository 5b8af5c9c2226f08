// `kgate agents`: the agent configurations (built in and from kgate.config.json), and for each whether
// it can run here: its key in the environment, its image built on the configured sandbox provider
// (images are otherwise built on first use), and its endpoint answering a models-list ping (skipped
// with --offline).

import {
  BUILTIN_AGENT_NAMES,
  ensureHarnessImage,
  loadAgentConfigs,
  type PingResult,
  pingEndpoint,
  planHarnessImage,
  type ResolvedAgentConfig,
  resolveApiKey,
} from "../agents/index.ts";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import type { ProjectPaths } from "../project.ts";
import {
  imageSourceOf,
  loadSandboxConfig,
  SandboxConfigError,
  type SandboxProvider,
  SandboxUnavailableError,
  sandboxProviderFor,
} from "../sandbox/index.ts";
import { formatProblem } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

export interface AgentsOptions {
  json?: boolean;
  build?: boolean;
  /** Skip the endpoint ping: then no configuration can be called `ready`. */
  offline?: boolean;
}

type Endpoint = PingResult | { state: "not-pinged"; url: string; reason: string };

interface ImageState {
  tag: string | null;
  built: boolean | null;
  note?: string;
}

/** Whether the sandbox and harness images are on the configured provider (where trials would run). */
async function imageStates(paths: ProjectPaths): Promise<{ sandbox: ImageState; harness: ImageState }> {
  const unknown = (note: string) => ({
    sandbox: { tag: null, built: null, note },
    harness: { tag: null, built: null, note },
  });
  let provider: SandboxProvider;
  try {
    provider = sandboxProviderFor(paths);
  } catch (err) {
    if (!(err instanceof SandboxConfigError)) throw err;
    return unknown(err.message);
  }
  const sandboxTag = imageSourceOf(paths, loadSandboxConfig(paths).image).ref;
  const harnessTag = planHarnessImage(paths, sandboxTag).tag;
  const findImage = provider.findImage?.bind(provider);
  if (!findImage) return unknown(`the ${provider.name} sandbox provider cannot say which images it has`);
  try {
    const [sandboxId, harnessId] = await Promise.all([findImage(sandboxTag), findImage(harnessTag)]);
    return {
      sandbox: { tag: sandboxTag, built: sandboxId !== null },
      harness: { tag: harnessTag, built: harnessId !== null },
    };
  } catch (err) {
    if (!(err instanceof SandboxUnavailableError)) throw err;
    return unknown(`sandbox host ${provider.host} unreachable: ${err.message.split("\n")[0]}`);
  }
}

async function ping(config: ResolvedAgentConfig, offline: boolean): Promise<Endpoint> {
  const url = config.baseUrl;
  if (offline) return { state: "not-pinged", url, reason: "--offline" };
  const key = resolveApiKey(config);
  if (key === undefined) return { state: "not-pinged", url, reason: `${config.apiKeyEnv} not set` };
  return pingEndpoint(config, key);
}

type Status = "ready" | "runnable" | "no key" | "unreachable" | "key refused";

function entry(
  config: ResolvedAgentConfig,
  images: { sandbox: ImageState; harness: ImageState },
  endpoint: Endpoint,
) {
  const key = resolveApiKey(config);
  const image = config.harness === "builtin" ? images.sandbox : images.harness;
  const runnable = key !== undefined;
  const ready = runnable && image.built === true && endpoint.state === "answered";
  const status: Status = !runnable
    ? "no key"
    : endpoint.state === "unreachable"
      ? "unreachable"
      : endpoint.state === "key-refused"
        ? "key refused"
        : ready
          ? "ready"
          : "runnable";
  return {
    name: config.name,
    description: config.description ?? null,
    harness: config.harnessRevision,
    provider: config.provider,
    model: config.model,
    baseUrl: config.baseUrl,
    digest: config.digest,
    key: { env: config.apiKeyEnv, present: config.apiKeyEnv === null ? null : key !== undefined },
    image,
    endpoint,
    runnable,
    ready,
    status,
  };
}

const STATUS_COLOURS: Record<Status, (s: string) => string> = {
  ready: pc.green,
  runnable: pc.yellow,
  "no key": pc.red,
  unreachable: pc.red,
  "key refused": pc.red,
};

function endpointLine(e: Endpoint): string {
  if (e.state === "not-pinged") return `endpoint not pinged (${e.reason})`;
  if (e.state === "answered") return `endpoint ${e.url} answered (HTTP ${e.status}, ${e.ms} ms)`;
  return pc.red(
    `endpoint ${e.url} ${e.state === "key-refused" ? "refused the key" : "unreachable"}: ${e.message}`,
  );
}

/** Builds the images the agents need on the configured provider (where their trials would run). */
async function buildImages(ctx: CommandContext, agents: readonly ResolvedAgentConfig[]): Promise<void> {
  const onProgress = (line: string) => ctx.stderr.write(`${pc.dim("build:")} ${line}\n`);
  try {
    const provider = sandboxProviderFor(ctx.paths);
    await provider.prepareImage(ctx.paths, onProgress);
    if (agents.some((a) => a.harness !== "builtin"))
      await ensureHarnessImage(ctx.paths, provider, onProgress);
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n(run \`kgate sandbox doctor\` to see what is missing)`);
  }
}

export async function run(ctx: CommandContext, options: AgentsOptions): Promise<number> {
  const loaded = loadAgentConfigs(ctx.paths);
  if (options.build && loaded.errors.length === 0) await buildImages(ctx, loaded.agents);
  const [images, endpoints] = await Promise.all([
    loaded.agents.length > 0 ? imageStates(ctx.paths) : null,
    Promise.all(loaded.agents.map((a) => ping(a, options.offline === true))),
  ]);
  const configured = images ? loaded.agents.map((a, i) => entry(a, images, endpoints[i]!)) : [];
  const problems = [...loaded.errors, ...loaded.warnings];
  if (options.json) {
    const builtin = BUILTIN_AGENT_NAMES.map((name) => ({ name, harness: name, runnable: true }));
    const out = { file: loaded.file, exists: loaded.exists, builtin, agents: configured, problems };
    ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return loaded.errors.length ? EXIT_FAILED : EXIT_OK;
  }
  ctx.stdout.write(
    `${pc.bold("built in")}  ${BUILTIN_AGENT_NAMES.join(", ")}  ${pc.dim("(always runnable)")}\n`,
  );
  if (!loaded.exists) ctx.stdout.write(`no ${loaded.file}: no configured agents (see docs/agents.md)\n`);
  for (const p of problems) {
    ctx.stdout.write(
      `${p.severity === "error" ? pc.red("error") : pc.yellow("warning")} ${formatProblem(p)}\n`,
    );
  }
  for (const a of configured) {
    const status = STATUS_COLOURS[a.status](a.status.padEnd(11));
    ctx.stdout.write(
      `${status} ${pc.bold(a.name)}  ${a.harness} · ${a.provider} · ${a.model}  ${pc.dim(a.baseUrl)}\n`,
    );
    const key =
      a.key.env === null ? "no key needed" : `${a.key.env} ${a.key.present ? "set" : pc.red("not set")}`;
    const image =
      a.image.built === null
        ? `image unknown (${a.image.note})`
        : `image ${a.image.tag} ${a.image.built ? "built" : "not built yet (built on first run)"}`;
    ctx.stdout.write(`            ${key} · ${image} · ${pc.dim(`digest ${a.digest.slice(0, 12)}`)}\n`);
    ctx.stdout.write(`            ${endpointLine(a.endpoint)}\n`);
  }
  if (loaded.exists && configured.length > 0) {
    const runnable = configured.filter((a) => a.runnable).length;
    const ready = configured.filter((a) => a.ready).length;
    const note = options.offline ? " (--offline: endpoints not pinged)" : "";
    ctx.stdout.write(
      `${configured.length} configured agent(s), ${runnable} runnable, ${ready} ready${note}\n`,
    );
  }
  return loaded.errors.length ? EXIT_FAILED : EXIT_OK;
}
