// Reads a Harbor task.toml for `kgate import harbor`: TOML syntax errors with line and column, and
// the fields kgate takes over (title, timeouts, resources, network) checked with path-precise errors
// (the same check reads a BenchFlow task.md's front matter, task-md.ts).
import { parse, TomlError } from "smol-toml";
import { z } from "zod";
import { fieldPath } from "../common/index.ts";

const HarborTaskToml = z.object({
  task: z.object({ name: z.string().optional(), description: z.string().optional() }).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  agent: z.object({ timeout_sec: z.number().positive().optional() }).optional(),
  environment: z
    .object({
      cpus: z.number().positive().optional(),
      memory_mb: z.number().int().positive().optional(),
      allow_internet: z.boolean().optional(),
      network_mode: z.enum(["public", "no-network", "allowlist"]).optional(),
    })
    .optional(),
});

export type HarborTaskToml = z.infer<typeof HarborTaskToml>;

export class HarborTaskError extends Error {
  override name = "HarborTaskError";
}

export function readHarborToml(file: string, text: string): HarborTaskToml {
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
      throw new HarborTaskError(`${file}: line ${err.line}, column ${err.column}: invalid TOML: ${first}`);
    }
    throw err;
  }
  return harborConfig(file, data);
}

/** The fields kgate takes over, checked: an error names the file and each field. */
export function harborConfig(file: string, data: unknown): HarborTaskToml {
  const result = HarborTaskToml.safeParse(data);
  if (!result.success) {
    const lines = result.error.issues.map(
      (i) => `${fieldPath(i.path)}: ${i.message.replace(/^Invalid input: /, "")}`,
    );
    throw new HarborTaskError(`${file}: ${lines.join("; ")}`);
  }
  return result.data;
}

/** Harbor's network rule: network_mode wins, then allow_internet (default true). */
export function harborNetwork(config: HarborTaskToml): boolean {
  const mode = config.environment?.network_mode;
  if (mode !== undefined) return mode !== "no-network";
  return config.environment?.allow_internet ?? true;
}
