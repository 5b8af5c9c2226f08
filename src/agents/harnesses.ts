// What each harness is, pinned: the built-in loop's revision and the npm packages of installed CLIs.
import type { HarnessName } from "./config.ts";

export interface InstalledHarness {
  /** npm package installed once into the derived image. */
  npm: string;
  version: string;
  /** Command on PATH inside the derived image. */
  bin: string;
}

/** Bump when the built-in loop changes what the model sees (tools, prompt, stop rules) or how it is
 * billed (2: prompt-cache breakpoints on Anthropic requests). */
export const BUILTIN_HARNESS_REVISION = "builtin@2";

export const INSTALLED_HARNESSES: Record<Exclude<HarnessName, "builtin">, InstalledHarness> = {
  "claude-code": { npm: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" },
  codex: { npm: "@openai/codex", version: "0.171.0", bin: "codex" },
  opencode: { npm: "opencode-ai", version: "1.18.33", bin: "opencode" },
};

/** The exact harness that ran, for digests and records: `builtin@2`, `claude-code@2.1.332`. */
export function harnessRevision(harness: HarnessName): string {
  if (harness === "builtin") return BUILTIN_HARNESS_REVISION;
  return `${harness}@${INSTALLED_HARNESSES[harness].version}`;
}
