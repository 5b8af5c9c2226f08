// The harness image: the sandbox image plus the installed CLI harnesses at pinned versions and the
// relay forwarder, planned here from sandbox/harness/ and tagged by content digest, built once (never
// per trial) by the run's sandbox provider, where its trials run (SandboxProvider.prepareDerivedImage).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { packagePath } from "../../package-info.ts";
import type { ProjectPaths } from "../../project.ts";
import type { DerivedImageSpec, SandboxProvider } from "../../sandbox/index.ts";
import { fileSetDigest, listFiles, sha256 } from "../../task/index.ts";
import { INSTALLED_HARNESSES } from "../harnesses.ts";

/** kgate's own harness build context, used when a project has no sandbox/harness/Dockerfile. */
export const BUILTIN_HARNESS_DIR = packagePath("sandbox", "harness");

export interface HarnessImagePlan extends DerivedImageSpec {
  /** `@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0` */
  packages: string;
  digest: string;
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

/** The plan on a given sandbox image tag (which itself carries the sandbox's content digest). */
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
  return {
    tag: `kgate-harness:${digest.slice(0, 12)}`,
    base,
    contextDir,
    files,
    buildArgs: { HARNESS_PACKAGES: packages },
    labels: { kgate: "1", "kgate.harness.digest": digest, "kgate.harness.packages": packages },
    what: "the harness image",
    packages,
    digest,
  };
}

/**
 * Returns the harness image tag on `provider`, which builds the sandbox image and then this one
 * where they are missing. Rejects like SandboxProvider.prepareDerivedImage.
 */
export async function ensureHarnessImage(
  paths: ProjectPaths,
  provider: SandboxProvider,
  onProgress?: (line: string) => void,
): Promise<string> {
  if (!provider.prepareDerivedImage)
    throw new Error(
      `the ${provider.name} sandbox provider builds no images derived from the sandbox image: installed harnesses cannot run on it`,
    );
  const base = await provider.prepareImage(paths, onProgress);
  return (await provider.prepareDerivedImage(planHarnessImage(paths, base.ref), onProgress)).ref;
}
