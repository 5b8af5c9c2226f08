// Where the sandbox image comes from, apart from the runtime that runs it: built from the project's
// sandbox/ folder (kgate's own when it has none), tagged by the content digest of the build context,
// or a registry reference set in kgate.config.json (`sandbox.image`), which is pulled and never built.
// A provider makes the source's image available where its sandboxes run (prepareImage).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { packagePath } from "../package-info.ts";
import type { ProjectPaths } from "../project.ts";
import { fileSetDigest, listFiles, sha256 } from "../task/index.ts";

/** The sandbox image's source: a build of sandbox/, or an image in a registry (pulled by reference). */
export type ImageSource = { kind: "build"; ref: string; plan: ImagePlan } | { kind: "registry"; ref: string };

/**
 * `sandbox.image` when set (a registry reference: `registry.example.com/team/kgate-sandbox:1`, or
 * pinned `...@sha256:<64 hex>`), else the build of sandbox/. Throws as planImage does.
 */
export function imageSourceOf(paths: ProjectPaths, image?: string): ImageSource {
  if (image) return { kind: "registry", ref: image };
  const plan = planImage(paths);
  return { kind: "build", ref: plan.tag, plan };
}

export const CA_FILE_IN_CONTEXT = "extra-ca-certificates.crt";
/** The sandbox/ folder shipped with kgate, used when a project has none of its own. */
export const BUILTIN_SANDBOX_DIR = packagePath("sandbox");

export interface ImagePlan {
  /** The folder whose files make the build context. */
  contextDir: string;
  /** Files of the context, relative to contextDir. */
  files: string[];
  caFile: string | null;
  caBytes: Buffer;
  /** sha256 over the context files and the CA bundle. */
  digest: string;
  tag: string;
}

/** The project's sandbox/ when it has a Dockerfile, else kgate's own. */
export function sandboxContextDir(paths: ProjectPaths): string {
  return existsSync(path.join(paths.sandbox, "Dockerfile")) ? paths.sandbox : BUILTIN_SANDBOX_DIR;
}

export function resolveExtraCaCerts(option?: string | null): string | null {
  if (option !== undefined) return option || null;
  const env = process.env.KGATE_EXTRA_CA_CERTS ?? process.env.NODE_EXTRA_CA_CERTS;
  return env ? env : null;
}

/**
 * The build of sandbox/ (or kgate's own): its files, the extra CA bundle and the content-addressed
 * tag `kgate-sandbox:<digest>`. Throws when the folder has no Dockerfile or the CA file is unreadable.
 */
export function planImage(paths: ProjectPaths, options: { extraCaCerts?: string | null } = {}): ImagePlan {
  const contextDir = sandboxContextDir(paths);
  // harness/ is the context of the derived harness image (src/agents/installed/image.ts), not of this one
  const files = listFiles(contextDir).filter((f) => f !== CA_FILE_IN_CONTEXT && !f.startsWith("harness/"));
  if (!files.includes("Dockerfile")) throw new Error(`no Dockerfile in ${contextDir}`);
  const caFile = resolveExtraCaCerts(options.extraCaCerts);
  let caBytes = Buffer.alloc(0);
  if (caFile) {
    try {
      caBytes = readFileSync(caFile);
    } catch (err) {
      throw new Error(`cannot read the extra CA certificates ${caFile}: ${(err as Error).message}`);
    }
  }
  const digest = fileSetDigest([
    ...files.map((f) => ({ path: f, sha256: sha256(readFileSync(path.join(contextDir, f))) })),
    { path: CA_FILE_IN_CONTEXT, sha256: sha256(caBytes) },
  ]);
  return { contextDir, files, caFile, caBytes, digest, tag: `kgate-sandbox:${digest.slice(0, 12)}` };
}
