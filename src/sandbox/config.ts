// The `sandbox` part of kgate.config.json: which registered provider runs the trials and its
// settings (for Docker: the endpoint and TLS material). A missing key gives the local Docker daemon.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { ProjectPaths } from "../project.ts";
import { DockerProvider } from "./docker-provider.ts";
import type { SandboxProvider } from "./provider.ts";

const DockerSettings = z
  .object({
    /** unix:///path/docker.sock, tcp://host:port or ssh://user@host; default DOCKER_HOST, then the socket. */
    host: z
      .string()
      .regex(/^(unix|tcp|ssh):\/\//, "must start with unix://, tcp:// or ssh://")
      .optional(),
    tls: z.object({ ca: z.string(), cert: z.string(), key: z.string() }).strict().optional(),
  })
  .strict();

export const SandboxConfig = z
  .object({
    provider: z.string().default("docker"),
    docker: DockerSettings.default({}),
  })
  .strict();
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** Providers by name: each builds itself from the configuration (paths resolve from the project root). */
export const SANDBOX_PROVIDERS: Record<string, (config: SandboxConfig, root: string) => SandboxProvider> = {
  docker: (config, root) => {
    const tls = config.docker.tls;
    const abs = (p: string) => path.resolve(root, p);
    return new DockerProvider({
      host: config.docker.host,
      tls: tls && { ca: abs(tls.ca), cert: abs(tls.cert), key: abs(tls.key) },
    });
  },
};

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
