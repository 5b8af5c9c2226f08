// The built-in harness's system prompt: the configured policy, plus the artefact listed as an
// available reference (path + one line) only under +A / variant. The instruction is never touched.
import type { SystemPromptPolicy } from "./config.ts";

export function defaultSystemPrompt(workdir: string): string {
  return [
    "You are an autonomous agent working in a Linux sandbox without network access.",
    `Your working directory is ${workdir}; relative paths are relative to it.`,
    "Use the tools to inspect files, run commands and write the requested outputs.",
    "Nobody will answer questions: decide for yourself. When the task is complete, call the finish tool.",
  ].join("\n");
}

export function referenceListing(artefact: { path: string; description: string }): string {
  return `Available references (read them when relevant):\n- ${artefact.path}: ${artefact.description}`;
}

/** The system prompt for one run; null when the policy says none and there is nothing to list. */
export function buildSystemPrompt(
  policy: SystemPromptPolicy,
  workdir: string,
  artefact: { path: string; description: string } | null,
): string | null {
  const base =
    policy.mode === "none"
      ? null
      : policy.mode === "replace"
        ? policy.text!
        : policy.mode === "append"
          ? `${defaultSystemPrompt(workdir)}\n\n${policy.text}`
          : defaultSystemPrompt(workdir);
  const parts = [base, artefact ? referenceListing(artefact) : null].filter((p): p is string => p !== null);
  return parts.length ? parts.join("\n\n") : null;
}
