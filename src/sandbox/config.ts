// The `sandbox` part of kgate.config.json: which registered provider runs the trials and its
// settings (for Docker: the endpoint and TLS material). A missing key gives the local Docker daemon.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ProjectPaths } from "../project.ts";
import { HostPoolProvider, type PoolHost } from "./docker/host-pool.ts";
import { DockerProvider, describeEndpoint } from "./docker/provider.ts";
import type { SandboxProvider } from "./provider.ts";

const Endpoint = z.string().regex(/^(unix|tcp|ssh):\/\//, "must start with unix://, tcp:// or ssh://");
const TlsFiles = z.object({ ca: z.string(), cert: z.string(), key: z.string() }).strict();

const DockerSettings = z
  .object({
    /** unix:///path/docker.sock, tcp://host:port or ssh://user@host; default DOCKER_HOST, then the socket. */
    host: Endpoint.optional(),
    tls: TlsFiles.optional(),
  })
  .strict();

/** One Docker engine of `sandbox.hosts`: records name it, `capacity` trials run on it at once. */
const HostSettings = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, "letters, digits, . _ - (up to 63)"),
    host: Endpoint,
    capacity: z.number().int().min(1).max(256).default(4),
    tls: TlsFiles.optional(),
    ssh: z.object({ identityFile: z.string() }).strict().optional(),
  })
  .strict();

export const SandboxConfig = z
  .object({
    provider: z.string().default("docker"),
    docker: DockerSettings.default({}),
    /** A pool of Docker engines; absent: the one endpoint of `docker` (the local socket by default). */
    hosts: z
      .array(HostSettings)
      .min(1)
      .refine((hosts) => new Set(hosts.map((h) => h.name)).size === hosts.length, "host names must differ")
      .optional(),
  })
  .strict();
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** Providers by name: each builds itself from the configuration (paths resolve from the project root). */
export const SANDBOX_PROVIDERS: Record<string, (config: SandboxConfig, root: string) => SandboxProvider> = {
  docker: (config, root) => {
    const tls = config.docker.tls;
    const abs = (p: string) => path.resolve(root, p);
    if (config.hosts)
      return new HostPoolProvider(poolHosts(config, root), {
        log: (line) => process.stderr.write(`sandbox: ${line}\n`),
      });
    return new DockerProvider({
      host: config.docker.host,
      tls: tls && { ca: abs(tls.ca), cert: abs(tls.cert), key: abs(tls.key) },
    });
  },
};

/** The hosts of `sandbox.hosts` with their files resolved from the project root (none: the one endpoint). */
export function poolHosts(config: SandboxConfig, root: string): PoolHost[] {
  const abs = (p: string) => path.resolve(root, p);
  if (!config.hosts) {
    const tls = config.docker.tls;
    const endpoint = {
      host: config.docker.host,
      tls: tls && { ca: abs(tls.ca), cert: abs(tls.cert), key: abs(tls.key) },
    };
    return [{ name: describeEndpoint(endpoint), endpoint, capacity: Number.POSITIVE_INFINITY }];
  }
  return config.hosts.map((h) => ({
    name: h.name,
    capacity: h.capacity,
    endpoint: {
      host: h.host,
      tls: h.tls && { ca: abs(h.tls.ca), cert: abs(h.tls.cert), key: abs(h.tls.key) },
      ssh: h.ssh && { identityFile: abs(h.ssh.identityFile) },
    },
  }));
}

export class SandboxConfigError extends Error {
  override name = "SandboxConfigError";
}

/** Reads `sandbox` of kgate.config.json; errors name the file and the field. */
export function loadSandboxConfig(paths: ProjectPaths): SandboxConfig {
  let root: Record<string, unknown> = {};
  if (existsSync(paths.config)) {
    try {
      root = JSON.parse(readFileSync(paths.config, "utf8")) as Record<string, unknown>;
    } catch {
      root = {}; // the agents' loader reports a broken file with its line and column
    }
  }
  const parsed = SandboxConfig.safeParse(root.sandbox ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = ["sandbox", ...issue.path.map(String)].join(".");
    throw new SandboxConfigError(`${paths.config}: ${field}: ${issue.message}`);
  }
  if (!(parsed.data.provider in SANDBOX_PROVIDERS)) {
    const known = Object.keys(SANDBOX_PROVIDERS).join(", ");
    throw new SandboxConfigError(
      `${paths.config}: sandbox.provider: unknown provider "${parsed.data.provider}" (known: ${known})`,
    );
  }
  return parsed.data;
}

/** The provider kgate.config.json names (the local Docker daemon by default). */
export function sandboxProviderFor(paths: ProjectPaths): SandboxProvider {
  const config = loadSandboxConfig(paths);
  return SANDBOX_PROVIDERS[config.provider]!(config, paths.root);
}
