// Whose failure a dead harness is, decided from the harness's fate first and then from what the relay
// saw: a broken channel or a kill after the agent acted is the agent's; the relay's own upstream
// failure on the latest call is infrastructure; a provider's refusal of a request's content is the
// agent's once it acted (its commands shaped the conversation), the configuration's before.
import { type TrialError, trialError } from "../../record/index.ts";

export interface HarnessDeath {
  harness: string;
  /** Non-zero: the harness exited on its own (1..128) or was killed by a signal (128 + n). */
  exitCode: number;
  stderr: string;
  /** Model turns answered: 0 means the agent never acted (no command of it ran). */
  turns: number;
  /** The relay channel's protocol broken (only the sandbox's processes write to it), or null. */
  brokenChannel: string | null;
  /** The relay's own upstream failure on the latest model call (RelaySession.infraFailure). */
  infraFailure: TrialError | null;
  /** The provider's latest refusal of a request's content (RelaySession.rejection). */
  rejection: TrialError | null;
}

/** The error of a harness that exited non-zero without reporting a stop (see docs/architecture.md). */
export function harnessDeathError(d: HarnessDeath): TrialError {
  const tail = d.stderr.trim().split("\n").slice(-3).join(" | ");
  const exited = `${d.harness} exited with ${d.exitCode}: ${tail}`;
  if (d.brokenChannel) return trialError("agent-exit", d.brokenChannel);
  const acted = d.turns > 0;
  // Nothing of kgate signals a harness but the timeout and a cancel (decided before this): once the
  // agent's commands run, a kill is theirs (or the memory limit they filled), whatever the relay saw.
  if (acted && d.exitCode > 128) return trialError("agent-exit", `${d.harness} was killed (${exited})`);
  if (d.infraFailure) return d.infraFailure;
  if (d.rejection) {
    if (!acted || d.rejection.kind !== "provider-rejected") return d.rejection;
    return trialError(
      "agent-exit",
      `${exited}; the provider had refused a request of the agent's conversation: ${d.rejection.message}`,
    );
  }
  // After a model call the agent was at work: its commands may have killed the harness (its own
  // failure); a harness that dies before any call failed to start (infrastructure, retried).
  return trialError(acted ? "agent-exit" : "harness-start", exited);
}
