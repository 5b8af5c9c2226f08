// What an installed CLI harness's adapter tells kgate: how it is launched headless inside the sandbox
// (argv and env, pointed at the relay), where it discovers skills, and how its own report of the
// ending is read from the tail of its stdout. The adapters themselves: adapters.ts, opencode.ts.
import type { StopReason } from "../../record/index.ts";
import type { SystemPromptPolicy } from "../config.ts";

export interface LaunchInput {
  model: string;
  maxTurns: number;
  maxOutputTokens: number;
  /** The configuration's sampling temperature, for harnesses that take one (OpenCode). */
  temperature?: number;
  systemPrompt: SystemPromptPolicy;
  /** The relay as the harness reaches it inside the container, e.g. http://127.0.0.1:4100. */
  relayUrl: string;
  /** The trial's relay token, sent as the harness's API key. */
  token: string;
  /** The agent user's home inside the sandbox (writable). */
  home: string;
}

export interface HarnessLaunch {
  argv: string[];
  env: Record<string, string>;
}

export interface HarnessReport {
  /** A stop reason the harness itself reported (e.g. its own turn limit). */
  stopReason?: StopReason;
  /** Facts for the trajectory (subtype, turns, the harness's own cost estimate). */
  facts: Record<string, unknown>;
  /** The harness's final message to the user (Claude Code's `result`), for the monitoring follow-up. */
  finalMessage?: string;
}

export interface HarnessAdapter {
  readonly name: string;
  /** Folder (relative to the work directory) where the harness discovers skills; null if none. */
  readonly skillsDir: string | null;
  /** The instruction goes on stdin, byte-identical; argv and env say everything else. */
  launch(input: LaunchInput): HarnessLaunch;
  /** Reads the harness's final report from the tail of its stdout. */
  report(stdoutTail: string): HarnessReport;
}
