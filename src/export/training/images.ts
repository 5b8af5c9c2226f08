// The images of a training export, built and pushed through the sandbox provider (the only door to
// Docker): the agent's image from environment/ and the verifier's from tests/, each built FROM the
// provider's sandbox image (kgate's Debian with python3; the build adds node and the files) under a
// content-addressed tag, pushed to the registry, and named by the pushed manifest's digest:
// `<registry>/<folder>@sha256:...` and `<registry>/<folder>-verifier@sha256:...`.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { SandboxImage, SandboxProvider } from "../../sandbox/index.ts";
import { fileSetDigest, listFiles, sha256 } from "../../task/index.ts";

interface PushedImages {
  agent: string;
  verifier: string;
}

/** host[:port] and optional lower-case path components, as an image reference starts. */
const REGISTRY = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/;

/** The registry of --push, checked; the error says what it should look like. */
export function checkRegistry(registry: string): string {
  const trimmed = registry.replace(/\/+$/, "");
  if (!REGISTRY.test(trimmed) || !/[.:]|^localhost/.test(trimmed.split("/")[0]!)) {
    throw new Error(
      `--push ${registry}: expected a registry host with an optional port and path, e.g. registry.example.com/team or 127.0.0.1:5000 (lower case)`,
    );
  }
  return trimmed;
}

export interface ImageBuilder {
  provider: SandboxProvider;
  /** The provider's sandbox image: the BASE of both images. */
  base: SandboxImage;
  registry: string;
  onProgress?: (line: string) => void;
}

async function buildAndPush(b: ImageBuilder, contextDir: string, repository: string): Promise<string> {
  const { provider } = b;
  if (!provider.prepareDerivedImage || !provider.pushImage) {
    throw new Error(
      `the sandbox provider "${provider.name}" cannot build and push images for training exports`,
    );
  }
  const files = listFiles(contextDir);
  const tag = fileSetDigest([
    ...files.map((f) => ({ path: f, sha256: sha256(readFileSync(path.join(contextDir, f))) })),
    { path: "\u0000BASE", sha256: sha256(Buffer.from(b.base.ref)) },
  ]).slice(0, 16);
  const built = await provider.prepareDerivedImage(
    {
      tag: `kgate-export/${repository}:${tag}`,
      base: b.base.ref,
      contextDir,
      files,
      buildArgs: {},
      labels: { "kgate.export": repository },
      what: `the image ${repository}`,
    },
    b.onProgress,
  );
  const digest = await provider.pushImage(built.ref, `${b.registry}/${repository}:${tag}`, b.onProgress);
  return `${b.registry}/${repository}@${digest}`;
}

/** Builds and pushes the agent's and the verifier's image of one exported folder named `name`. */
export async function pushTrainingImages(
  b: ImageBuilder,
  folder: string,
  name: string,
): Promise<PushedImages> {
  const agent = await buildAndPush(b, path.join(folder, "environment"), name);
  const verifier = await buildAndPush(b, path.join(folder, "tests"), `${name}-verifier`);
  return { agent, verifier };
}
