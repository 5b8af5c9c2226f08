// Credentials for a registry, from Docker's own client configuration ($DOCKER_CONFIG/config.json,
// else ~/.docker/config.json) as the docker CLI resolves them: a credential helper named for the
// registry (`credHelpers`), else the default store (`credsStore`), else a stored `auths` entry. kgate
// keeps no credential of its own (never kgate.config.json). No entry: an anonymous push.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";

/** What the Engine API takes in X-Registry-Auth. */
export type RegistryAuth =
  | { username: string; password: string; serveraddress: string }
  | { identitytoken: string; serveraddress: string };

const DockerConfig = z.object({
  auths: z
    .record(z.string(), z.object({ auth: z.string().optional(), identitytoken: z.string().optional() }))
    .optional(),
  credHelpers: z.record(z.string(), z.string()).optional(),
  credsStore: z.string().optional(),
});

/** The registry of an image reference: its first component when it names a host (has . or :, or is localhost). */
export function registryOf(reference: string): string {
  const first = reference.split("/")[0]!;
  return reference.includes("/") && (/[.:]/.test(first) || first === "localhost") ? first : "docker.io";
}

function dockerConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.DOCKER_CONFIG ?? path.join(homedir(), ".docker"), "config.json");
}

/** The stored entry whose key is the registry, with or without a scheme and a path. */
function storedFor<T>(entries: Record<string, T> | undefined, registry: string): T | undefined {
  if (!entries) return undefined;
  const host = (key: string) => key.replace(/^https?:\/\//, "").split("/")[0];
  const key = Object.keys(entries).find((k) => host(k) === registry);
  return key === undefined ? undefined : entries[key];
}

function fromHelper(helper: string, registry: string): RegistryAuth {
  const run = spawnSync(`docker-credential-${helper}`, ["get"], {
    input: registry,
    encoding: "utf8",
    timeout: 30_000,
  });
  if (run.error || run.status !== 0) {
    const why = run.error?.message ?? (run.stdout || run.stderr).trim();
    throw new Error(`docker-credential-${helper} get ${registry} failed: ${why}`);
  }
  const { Username, Secret } = JSON.parse(run.stdout) as { Username: string; Secret: string };
  return Username === "<token>"
    ? { identitytoken: Secret, serveraddress: registry }
    : { username: Username, password: Secret, serveraddress: registry };
}

/** The credentials Docker's config holds for `registry`, or null (anonymous). Errors name the file. */
export function registryAuth(registry: string, file: string = dockerConfigFile()): RegistryAuth | null {
  if (!existsSync(file)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: not JSON (${(err as Error).message}); fix it or point DOCKER_CONFIG elsewhere`);
  }
  const parsed = DockerConfig.safeParse(json);
  if (!parsed.success)
    throw new Error(`${file}: ${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
  const config = parsed.data;
  const helper = storedFor(config.credHelpers, registry) ?? config.credsStore;
  if (helper) return fromHelper(helper, registry);
  const stored = storedFor(config.auths, registry);
  if (stored?.identitytoken) return { identitytoken: stored.identitytoken, serveraddress: registry };
  if (!stored?.auth) return null;
  const decoded = Buffer.from(stored.auth, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new Error(`${file}: auths.${registry}.auth: not base64 of <user>:<password>`);
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1), serveraddress: registry };
}
