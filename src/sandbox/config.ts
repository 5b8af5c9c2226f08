// The `sandbox` part of kgate.config.json: which registered provider runs the trials (`provider`,
// default docker), where the sandbox image comes from (`image`: a registry reference instead of a
// build of sandbox/), and the chosen provider's own settings, checked by that provider's schema. A
// missing section gives the local Docker daemon. Errors name the file and the field.
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import type { ProjectPaths } from "../project.ts";
import { dockerRegistration } from "./docker/settings.ts";
import type { CommonSettings, ProviderRegistration, SandboxProvider } from "./provider.ts";

/** A registry reference: `[registry/]name[:tag][@sha256:<64 hex>]`, no spaces, no scheme. */
const ImageRef = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._\-/:]*(@sha256:[0-9a-f]{64})?$/,
    "must be an image reference such as registry.example.com/team/kgate-sandbox:1 or ...@sha256:<64 hex digits>",
  );

/** The keys every provider's section has. */
const COMMON = {
  provider: z.string().default("docker"),
  /** The sandbox image as a registry reference (pulled, never built); absent: sandbox/ is built. */
  image: ImageRef.optional(),
};

/** Providers by name: a second provider is one more entry, with its folder beside docker/. */
export const SANDBOX_PROVIDERS: Record<string, ProviderRegistration> = {
  docker: dockerRegistration as unknown as ProviderRegistration,
};

/** The `sandbox` section as read: the common keys, and the provider's own (by its schema). */
export type SandboxConfig = CommonSettings & Record<string, unknown>;

export class SandboxConfigError extends Error {
  override name = "SandboxConfigError";
}

/** Reads `sandbox` of kgate.config.json with the chosen provider's schema; errors name the file and the field. */
export function loadSandboxConfig(paths: ProjectPaths): SandboxConfig {
  const section = sandboxSection(paths);
  const fail = (field: string, message: string) =>
    new SandboxConfigError(`${paths.config}: ${field}: ${message}`);
  if (typeof section !== "object" || section === null || Array.isArray(section))
    throw fail("sandbox", "must be an object");
  const name = z.object({ provider: COMMON.provider }).safeParse(section);
  if (!name.success) throw fail("sandbox.provider", "must be a string (the name of a provider)");
  const registration = SANDBOX_PROVIDERS[name.data.provider];
  const known = Object.keys(SANDBOX_PROVIDERS).join(", ");
  if (!registration)
    throw fail("sandbox.provider", `unknown provider "${name.data.provider}" (known: ${known})`);
  const schema = z.object({ ...COMMON, ...registration.settings });
  const keys = new Set(Object.keys(schema.shape));
  const stray = Object.keys(section).find((key) => !keys.has(key));
  if (stray !== undefined)
    throw fail(
      `sandbox.${stray}`,
      `not a setting of the "${name.data.provider}" provider (its settings: ${[...keys].join(", ")})`,
    );
  const parsed = schema.safeParse(section);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fail(["sandbox", ...issue.path.map(String)].join("."), issue.message);
  }
  return parsed.data as SandboxConfig;
}

function sandboxSection(paths: ProjectPaths): unknown {
  if (!existsSync(paths.config)) return {};
  try {
    const root = JSON.parse(readFileSync(paths.config, "utf8")) as Record<string, unknown>;
    return root.sandbox ?? {};
  } catch {
    return {}; // the agents' loader reports a broken file with its line and column
  }
}

/** The provider kgate.config.json names (the local Docker daemon by default). */
export function sandboxProviderFor(paths: ProjectPaths): SandboxProvider {
  const config = loadSandboxConfig(paths);
  return SANDBOX_PROVIDERS[config.provider]!.create(config, paths.root);
}
