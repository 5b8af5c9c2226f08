// The Docker provider's settings in kgate.config.json `sandbox` (`docker`: one endpoint; `hosts`: a
// pool of engines) and the provider they make: one daemon, or a pool placing trials on its hosts.
import path from "node:path";
import { z } from "zod";
import type { ProviderRegistration } from "../provider.ts";
import { HostPoolProvider, type PoolHost } from "./host-pool.ts";
import { DockerProvider, describeEndpoint } from "./provider.ts";

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

/** The Docker provider's keys of `sandbox`. */
export const DockerProviderSettings = z.object({
  docker: DockerSettings.default({}),
  /** A pool of Docker engines; absent: the one endpoint of `docker` (the local socket by default). */
  hosts: z
    .array(HostSettings)
    .min(1)
    .refine((hosts) => new Set(hosts.map((h) => h.name)).size === hosts.length, "host names must differ")
    .optional(),
});
export type DockerProviderSettings = z.infer<typeof DockerProviderSettings>;

/** The hosts of `sandbox.hosts` with their files resolved from the project root (none: the one endpoint). */
export function poolHosts(config: DockerProviderSettings, root: string): PoolHost[] {
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

/** `sandbox.provider: "docker"` (the default): one daemon, or the pool of `sandbox.hosts`. */
export const dockerRegistration: ProviderRegistration<typeof DockerProviderSettings.shape> = {
  settings: DockerProviderSettings.shape,
  create: (settings, root) => {
    if (settings.hosts)
      return new HostPoolProvider(poolHosts(settings, root), {
        image: settings.image,
        log: (line) => process.stderr.write(`sandbox: ${line}\n`),
      });
    const [one] = poolHosts(settings, root);
    return new DockerProvider(one!.endpoint, { image: settings.image });
  },
};
