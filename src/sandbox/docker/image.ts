// The sandbox image on a Docker daemon: the build of sandbox/ (../image-source.ts) made on first use and
// found again by its content-addressed tag, on top of debian:bookworm-slim or, when that cannot be
// pulled, a bootstrapped base; or a registry reference, pulled when the daemon lacks it.
import { readFileSync } from "node:fs";
import path from "node:path";
import tar from "tar-stream";
import type { ProjectPaths } from "../../project.ts";
import { CA_FILE_IN_CONTEXT, type ImagePlan, type ImageSource, planImage } from "../image-source.ts";
import { SandboxUnavailableError } from "../types.ts";
import { DEFAULT_RECIPE, ensureBootstrappedBase } from "./bootstrap.ts";
import type { ProgressLine } from "./calls.ts";
import { DockerClient } from "./client.ts";

export const DEFAULT_BASE = "debian:bookworm-slim";

export interface ImageOptions {
  onProgress?: ProgressLine;
  /** Build even when an image with the current digest exists. */
  force?: boolean;
  /** PEM bundle trusted inside the image; default: $KGATE_EXTRA_CA_CERTS, else $NODE_EXTRA_CA_CERTS. */
  extraCaCerts?: string | null;
  /** How long a pull of the base may take before kgate bootstraps one instead. */
  pullTimeoutMs?: number;
  docker?: DockerClient;
}

function buildContext(plan: ImagePlan) {
  const pack = tar.pack();
  for (const f of plan.files) {
    pack.entry({ name: f, mode: 0o644 }, readFileSync(path.join(plan.contextDir, f)));
  }
  pack.entry({ name: CA_FILE_IN_CONTEXT, mode: 0o644 }, plan.caBytes);
  pack.finalize();
  return pack;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The base to build on: the local or pulled debian image, else a bootstrapped one (said so). */
async function resolveBase(docker: DockerClient, log: ProgressLine, pullTimeoutMs: number): Promise<string> {
  if (process.env.KGATE_SANDBOX_BASE === "bootstrap") {
    log("KGATE_SANDBOX_BASE=bootstrap: not pulling, bootstrapping the base from Debian packages");
    return ensureBootstrappedBase(docker, DEFAULT_RECIPE, log);
  }
  if (await docker.imageExists(DEFAULT_BASE)) return DEFAULT_BASE;
  log(`pulling ${DEFAULT_BASE}`);
  try {
    await withTimeout(
      docker.pullImage(DEFAULT_BASE),
      pullTimeoutMs,
      `no answer within ${pullTimeoutMs / 1000} s`,
    );
    return DEFAULT_BASE;
  } catch (err) {
    log(`pulling ${DEFAULT_BASE} failed (${(err as Error).message.split("\n")[0]})`);
    log("falling back to a base bootstrapped from Debian packages (debootstrap + import)");
    return ensureBootstrappedBase(docker, DEFAULT_RECIPE, log);
  }
}

/** Builds in flight, per daemon (a pool's hosts build apart) and tag. */
const inFlight = new WeakMap<DockerClient, Map<string, Promise<string>>>();
/** The client of callers that name no daemon (one, so that their builds share inFlight). */
let localDaemon: DockerClient | undefined;

/**
 * Returns the tag of the sandbox image for the current sandbox/ content, building it on
 * `options.docker` (default: DOCKER_HOST, else the local socket) when missing.
 */
export function ensureSandboxImage(paths: ProjectPaths, options: ImageOptions = {}): Promise<string> {
  const plan = planImage(paths, options);
  localDaemon ??= new DockerClient();
  const docker = options.docker ?? localDaemon;
  const building = inFlight.get(docker) ?? new Map<string, Promise<string>>();
  inFlight.set(docker, building);
  const key = `${plan.tag}:${options.force ? "force" : ""}`;
  const pending = building.get(key);
  if (pending) return pending;
  const promise = buildIfNeeded(docker, plan, options).finally(() => building.delete(key));
  building.set(key, promise);
  return promise;
}

async function buildIfNeeded(docker: DockerClient, plan: ImagePlan, options: ImageOptions): Promise<string> {
  const log = options.onProgress ?? (() => {});
  const previous = await docker.imageId(plan.tag);
  if (!options.force && previous) return plan.tag;
  log(`building the sandbox image ${plan.tag} from ${plan.contextDir}`);
  if (plan.caFile) log(`trusting the extra CA certificates in ${plan.caFile}`);
  const base = await resolveBase(docker, log, options.pullTimeoutMs ?? 120_000);
  const built = await docker.buildTaggedImage(
    buildContext(plan),
    {
      tag: plan.tag,
      buildargs: { BASE: base },
      labels: { kgate: "1", "kgate.sandbox.digest": plan.digest, "kgate.sandbox.base": base },
    },
    log,
  );
  // A forced rebuild leaves the old image untagged: remove it unless a container still uses it.
  if (previous && previous !== built) await docker.removeImage(previous);
  log(`built ${plan.tag}`);
  return plan.tag;
}

/**
 * The source's image on `options.docker`, by its ref: a build of sandbox/ (ensureSandboxImage), or a
 * registry reference pulled when the daemon lacks it (`force` pulls again: a tag may have moved).
 * A reference that cannot be pulled is a plain Error naming `sandbox.image`.
 */
export async function ensureImage(
  source: ImageSource,
  paths: ProjectPaths,
  options: ImageOptions = {},
): Promise<string> {
  if (source.kind === "build") return ensureSandboxImage(paths, options);
  localDaemon ??= new DockerClient();
  const docker = options.docker ?? localDaemon;
  if (!options.force && (await docker.imageId(source.ref))) return source.ref;
  options.onProgress?.(`pulling ${source.ref} (sandbox.image)`);
  try {
    await docker.pullImage(source.ref, options.onProgress);
  } catch (err) {
    if (err instanceof SandboxUnavailableError) throw err;
    throw new Error(`sandbox.image: ${source.ref} could not be pulled: ${(err as Error).message.trim()}`);
  }
  return source.ref;
}
