// The sandbox part of a trial, shared by the sandbox form and the session form: place on a host,
// create a hardened sandbox, copy the files in, the agent, stop every process, copy the declared
// outputs out, remove; every phase timed and bounded. Also the provenance such a trial records.

import { kgateVersion } from "../package-info.ts";
import type { Provenance, SandboxRequirements, TrialError } from "../record/index.ts";
import {
  type DeclaredOutput,
  type OutputFile,
  type PackFile,
  putFiles,
  SANDBOX_WORKDIR,
  type SandboxImage,
  type SandboxProvider,
  type SandboxSpec,
  type TrialSandbox,
} from "../sandbox/index.ts";
import { diskFullOr } from "./disk-full.ts";
import type { FormEnv } from "./lifecycle.ts";
import { cancelledError, sandboxPhaseError, timedPhase } from "./phases.ts";
import { NO_AGENT, type TrialOutcome } from "./record-parts.ts";

export interface SandboxPlan {
  provider: SandboxProvider;
  spec: SandboxSpec;
  /** Files placed under the work directory before the agent starts. */
  files: () => PackFile[];
  /** The agent phase, on the created sandbox. */
  agent: (sandbox: TrialSandbox) => Promise<TrialOutcome>;
  /** The declared outputs, relative to the work directory. */
  outputs: readonly DeclaredOutput[];
}

export interface SandboxRun {
  outcome: TrialOutcome;
  files: OutputFile[];
  error: TrialError | null;
}

/** Where the sandbox ran and what it was built from, as records keep it. */
export function sandboxProvenance(
  provider: SandboxProvider,
  image: SandboxImage,
  requirements: SandboxRequirements | undefined,
  harnessVersion: string | null,
  diskMb: number,
): Provenance {
  return {
    kgateVersion: kgateVersion(),
    sandboxProvider: provider.name,
    host: provider.host,
    sandboxImage: requirements?.image ?? image.id,
    sandboxBase: image.base,
    harnessVersion,
    diskCap: provider.diskCap ? { mechanism: provider.diskCap, mb: diskMb } : null,
  };
}

/** The sandbox's own deadline, from the trial's budget (a sandbox form's spec spreads it in). */
export function sandboxDeadline(env: FormEnv): { deadlineSec?: number } {
  const sec = env.budget.sandboxDeadlineSec;
  return sec === null ? {} : { deadlineSec: sec };
}

/** create, copy in, agent, stop, copy out, remove; never throws. */
export async function sandboxPhases(env: FormEnv, plan: SandboxPlan): Promise<SandboxRun> {
  const { clock, signal } = env;
  const bounds = env.budget.phases;
  let sandbox: TrialSandbox | null = null;
  let outcome = NO_AGENT;
  let files: OutputFile[] = [];
  let error: TrialError | null = null;
  let phase: "create" | "copyIn" | "stop" | "copyOut" = "create";
  try {
    signal?.throwIfAborted();
    sandbox = await timedPhase(
      clock,
      "create",
      bounds.create,
      () => plan.provider.create(plan.spec),
      (late) => void late.remove().catch(() => {}),
    );
    const box = sandbox;
    signal?.throwIfAborted();
    phase = "copyIn";
    await timedPhase(clock, "copyIn", bounds.copyIn, () => putFiles(box, SANDBOX_WORKDIR, plan.files()));
    signal?.throwIfAborted();
    outcome = await clock.run("agent", () => plan.agent(box));
    error = await diskFullOr(box, outcome.error);
    // Every process ends before the outputs are read: nothing of the agent writes during copy-out.
    phase = "stop";
    await timedPhase(clock, "stop", bounds.stop, () =>
      box.stop({ signal: AbortSignal.timeout(bounds.stop) }),
    );
    phase = "copyOut";
    if (error?.kind !== "cancelled")
      files = await timedPhase(clock, "copyOut", bounds.copyOut, () => box.collectOutputs(plan.outputs));
  } catch (err) {
    if (signal?.aborted) error = cancelledError(signal);
    else error ??= sandboxPhaseError(phase, err);
  } finally {
    const box = sandbox;
    if (box) await timedPhase(clock, "remove", bounds.remove, () => box.remove()).catch(() => {});
  }
  return { outcome, files, error };
}

/**
 * Runs `work` on a host of the provider: a pool of hosts reserves the slot (its images loaded there)
 * before the trial's clock starts; a single provider is its own host.
 */
export async function onPlacedHost<T>(
  provider: SandboxProvider,
  images: readonly string[],
  signal: AbortSignal | undefined,
  work: (placed: SandboxProvider) => Promise<T>,
): Promise<T> {
  const placement = (await provider.place?.(images, signal)) ?? { provider, release: () => {} };
  try {
    return await work(placement.provider);
  } finally {
    placement.release();
  }
}
