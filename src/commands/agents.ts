// `kgate agents`: the agent configurations (built in and from kgate.config.json), and for each whether
// it can run here: its key in the environment, its image built (images are otherwise built on first use).

import {
  BUILTIN_AGENT_NAMES,
  ensureHarnessImage,
  harnessImageStatus,
  loadAgentConfigs,
  type ResolvedAgentConfig,
  resolveApiKey,
} from "../agents/index.ts";
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK, UsageError } from "../errors.ts";
import type { ProjectPaths } from "../project.ts";
import { DockerClient, ensureSandboxImage, planImage } from "../sandbox/index.ts";
import { formatProblem } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

export interface AgentsOptions {
  json?: boolean;
  build?: boolean;
}

interface ImageState {
  tag: string | null;
  built: boolean | null;
  note?: string;
}

async function imageStates(paths: ProjectPaths): Promise<{ sandbox: ImageState; harness: ImageState }> {
  const docker = new DockerClient();
  try {
    await docker.ping();
  } catch (err) {
    const note = `Docker unreachable: ${(err as Error).message.split("\n")[0]}`;
    return { sandbox: { tag: null, built: null, note }, harness: { tag: null, built: null, note } };
  }
  const sandboxTag = planImage(paths).tag;
  const harness = await harnessImageStatus(paths, docker);
  return {
    sandbox: { tag: sandboxTag, built: (await docker.imageId(sandboxTag)) !== null },
    harness: { tag: harness.tag, built: harness.built },
  };
}

function entry(config: ResolvedAgentConfig, images: { sandbox: ImageState; harness: ImageState }) {
  const key = resolveApiKey(config);
  const image = config.harness === "builtin" ? images.sandbox : images.harness;
  const runnable = key !== undefined;
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
    runnable,
    ready: runnable && image.built === true,
  };
}

async function buildImages(ctx: CommandContext, agents: readonly ResolvedAgentConfig[]): Promise<void> {
  const onProgress = (line: string) => ctx.stderr.write(`${pc.dim("build:")} ${line}\n`);
  try {
    await ensureSandboxImage(ctx.paths, { onProgress });
    if (agents.some((a) => a.harness !== "builtin")) await ensureHarnessImage(ctx.paths, { onProgress });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n(run \`kgate sandbox doctor\` to see what is missing)`);
  }
}

export async function run(ctx: CommandContext, options: AgentsOptions): Promise<number> {
  const loaded = loadAgentConfigs(ctx.paths);
  if (options.build && loaded.errors.length === 0) await buildImages(ctx, loaded.agents);
  const images = loaded.agents.length > 0 ? await imageStates(ctx.paths) : null;
  const configured = images ? loaded.agents.map((a) => entry(a, images)) : [];
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
    const status = a.ready ? pc.green("ready   ") : a.runnable ? pc.yellow("runnable") : pc.red("no key  ");
    ctx.stdout.write(
      `${status} ${pc.bold(a.name)}  ${a.harness} · ${a.provider} · ${a.model}  ${pc.dim(a.baseUrl)}\n`,
    );
    const key =
      a.key.env === null ? "no key needed" : `${a.key.env} ${a.key.present ? "set" : pc.red("not set")}`;
    const image =
      a.image.built === null
        ? `image unknown (${a.image.note})`
        : `image ${a.image.tag} ${a.image.built ? "built" : "not built yet (built on first run)"}`;
    ctx.stdout.write(`         ${key} · ${image} · ${pc.dim(`digest ${a.digest.slice(0, 12)}`)}\n`);
  }
  if (loaded.exists && configured.length > 0) {
    const ready = configured.filter((a) => a.runnable).length;
    ctx.stdout.write(`${configured.length} configured agent(s), ${ready} runnable\n`);
  }
  return loaded.errors.length ? EXIT_FAILED : EXIT_OK;
}
