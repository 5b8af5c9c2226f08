// The harness image: the sandbox image plus the installed CLI harnesses at pinned versions and the
// relay forwarder, built once from sandbox/harness/ and cached by content digest (never per trial).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import tar from "tar-stream";
import type { ProjectPaths } from "../../project.ts";
import { DockerClient, ensureSandboxImage, planImage } from "../../sandbox/index.ts";
import { fileSetDigest, listFiles, sha256 } from "../../task/index.ts";
import { INSTALLED_HARNESSES } from "../harnesses.ts";

/** kgate's own harness build context, used when a project has no sandbox/harness/Dockerfile. */
export const BUILTIN_HARNESS_DIR = path.resolve(import.meta.dirname, "../../../sandbox/harness");

export interface HarnessImagePlan {
  contextDir: string;
  files: string[];
  /** `@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0` */
  packages: string;
  base: string;
  digest: string;
  tag: string;
}

export interface HarnessImageOptions {
  onProgress?: (line: string) => void;
  force?: boolean;
  docker?: DockerClient;
}

export function harnessContextDir(paths: ProjectPaths): string {
  const own = path.join(paths.sandbox, "harness");
  return existsSync(path.join(own, "Dockerfile")) ? own : BUILTIN_HARNESS_DIR;
}

export function harnessPackages(): string {
  return Object.values(INSTALLED_HARNESSES)
    .map((h) => `${h.npm}@${h.version}`)
    .join(" ");
}

/** The plan for a given sandbox image tag (which itself carries the sandbox's content digest). */
export function planHarnessImage(paths: ProjectPaths, base: string): HarnessImagePlan {
  const contextDir = harnessContextDir(paths);
  const files = listFiles(contextDir);
  if (!files.includes("Dockerfile")) throw new Error(`no Dockerfile in ${contextDir}`);
  const packages = harnessPackages();
  const digest = fileSetDigest([
    ...files.map((f) => ({ path: f, sha256: sha256(readFileSync(path.join(contextDir, f))) })),
    { path: "(packages)", sha256: sha256(packages) },
    { path: "(base)", sha256: sha256(base) },
  ]);
  return { contextDir, files, packages, base, digest, tag: `kgate-harness:${digest.slice(0, 12)}` };
}

/** The harness image tag for the current sandbox/ content and whether it is built (no build). */
export async function harnessImageStatus(
  paths: ProjectPaths,
  docker: DockerClient = new DockerClient(),
): Promise<{ tag: string; built: boolean }> {
  const plan = planHarnessImage(paths, planImage(paths).tag);
  return { tag: plan.tag, built: (await docker.imageId(plan.tag)) !== null };
}

const inFlight = new Map<string, Promise<string>>();

/** Returns the harness image tag, building the sandbox image and then this one when missing. */
export async function ensureHarnessImage(
  paths: ProjectPaths,
  options: HarnessImageOptions = {},
): Promise<string> {
  const base = await ensureSandboxImage(paths, { onProgress: options.onProgress, docker: options.docker });
  const plan = planHarnessImage(paths, base);
  const pending = inFlight.get(plan.tag);
  if (pending) return pending;
  const promise = build(plan, options).finally(() => inFlight.delete(plan.tag));
  inFlight.set(plan.tag, promise);
  return promise;
}

async function build(plan: HarnessImagePlan, options: HarnessImageOptions): Promise<string> {
  const docker = options.docker ?? new DockerClient();
  const log = options.onProgress ?? (() => {});
  if (!options.force && (await docker.imageId(plan.tag))) return plan.tag;
  log(`building the harness image ${plan.tag} (${plan.packages}) on ${plan.base}`);
  const pack = tar.pack();
  for (const f of plan.files)
    pack.entry({ name: f, mode: 0o644 }, readFileSync(path.join(plan.contextDir, f)));
  pack.finalize();
  await docker.buildTaggedImage(
    pack,
    {
      tag: plan.tag,
      buildargs: { BASE: plan.base, HARNESS_PACKAGES: plan.packages },
      labels: { kgate: "1", "kgate.harness.digest": plan.digest, "kgate.harness.packages": plan.packages },
    },
    log,
  );
  log(`built ${plan.tag}`);
  return plan.tag;
}
