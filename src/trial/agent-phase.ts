// The agent phase of a sandboxed trial or session: the agent under its wall clock, with a grace
// period for an agent that ignores its signal; a cancelled run wins over whatever the agent returned,
// so Ctrl-C is never a timeout, and an agent that throws is kgate's (or the provider's) failure. The
// agent charges its model calls in the phase's ledger, so one it abandons is charged all the same.
import { type Agent, type AgentRunContext, AgentTimeoutError, CallLedger } from "../agents/index.ts";
import { internalError, trialError } from "../record/index.ts";
import { HostDownError, SandboxUnavailableError } from "../sandbox/index.ts";
import { cancelledError } from "./phases.ts";
import type { TrialOutcome } from "./record-parts.ts";

/** What the agent is run with, but for the signal and the ledger the phase makes; its budget bounds the phase. */
export type AgentPhaseContext = Omit<AgentRunContext, "signal" | "ledger">;

export interface AgentPhaseOptions {
  agent: Agent;
  context: AgentPhaseContext;
  /** The run's cancellation. */
  signal?: AbortSignal;
}

/** Runs the agent; never throws. */
export async function agentPhase(o: AgentPhaseOptions): Promise<TrialOutcome> {
  const { trajectory, budget } = o.context;
  const wallClockSec = budget.wallClockSec;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new AgentTimeoutError(`the agent did not finish within ${wallClockSec} s`)),
    wallClockSec * 1000,
  );
  const onCancel = () => controller.abort(o.signal?.reason ?? new Error("the run was cancelled"));
  if (o.signal?.aborted) onCancel();
  else o.signal?.addEventListener("abort", onCancel, { once: true });
  let graceTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => {
      graceTimer = setTimeout(() => reject(controller.signal.reason), budget.phases.agentGrace);
    });
  });
  const cancelled = () => o.signal?.aborted === true;
  const minusA = o.context.condition === "-A";
  const ledger = new CallLedger(o.agent.pricing ?? null);
  try {
    const run = o.agent.run({ ...o.context, signal: controller.signal, ledger });
    const result = await Promise.race([run, abandoned]);
    const base = {
      usage: result.usage,
      reportedUsage: result.reportedUsage ?? null,
      artefactOpened: minusA ? null : (result.artefactOpened ?? null),
      artefactListed: result.artefactListed ?? null,
      retrospective: result.followUp ?? null,
    };
    if (cancelled()) return { ...base, stopReason: "cancelled", error: cancelledError(o.signal) };
    return { ...base, stopReason: result.stopReason, error: result.error ?? null };
  } catch (err) {
    // abandoned (or thrown): every call it made is charged, those still open at their reservation
    ledger.close();
    const usage = ledger.usage();
    const reportedUsage = ledger.reportedUsage();
    const base = { usage, reportedUsage, artefactOpened: null, artefactListed: null, retrospective: null };
    if (cancelled()) return { ...base, stopReason: "cancelled", error: cancelledError(o.signal) };
    if (controller.signal.reason instanceof AgentTimeoutError) {
      trajectory.append({ type: "error", kind: "timeout", message: controller.signal.reason.message });
      return {
        ...base,
        stopReason: "timeout",
        error: trialError("timeout", controller.signal.reason.message),
      };
    }
    // An agent reports its failures in its result; one that throws is a bug of kgate (or the provider's).
    const error =
      err instanceof HostDownError
        ? trialError("host-down", err.message)
        : err instanceof SandboxUnavailableError
          ? trialError("sandbox-unavailable", err.message)
          : internalError(err);
    trajectory.append({ type: "error", kind: error.kind, message: error.message });
    return { ...base, stopReason: "error", error };
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    o.signal?.removeEventListener("abort", onCancel);
  }
}
