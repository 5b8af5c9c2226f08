// Images derived from the sandbox image (an installed harness's) on one Docker daemon: the build
// context a caller planned, built with BASE set to the sandbox image, unless an image of its
// content-addressed tag is already there.
import { readFileSync } from "node:fs";
import path from "node:path";
import tar from "tar-stream";
import type { DerivedImageSpec } from "../provider.ts";
import type { DockerClient } from "./client.ts";

/** Builds `spec` on `docker` unless an image of its tag is there; returns the image's id. */
export async function ensureDerivedImage(
  docker: DockerClient,
  spec: DerivedImageSpec,
  log: (line: string) => void,
): Promise<string> {
  const found = await docker.imageId(spec.tag);
  if (found) return found;
  log(`building ${spec.what} ${spec.tag} on ${spec.base}`);
  const pack = tar.pack();
  for (const f of spec.files)
    pack.entry({ name: f, mode: 0o644 }, readFileSync(path.join(spec.contextDir, f)));
  pack.finalize();
  const id = await docker.buildTaggedImage(
    pack,
    { tag: spec.tag, buildargs: { ...spec.buildArgs, BASE: spec.base }, labels: spec.labels },
    log,
  );
  log(`built ${spec.tag}`);
  return id;
}
