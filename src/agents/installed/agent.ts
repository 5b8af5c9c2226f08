// An installed CLI harness as an Agent: prepared once per run (its derived image on the run's sandbox
// provider, the relay on a host socket), run per trial headless in the sandbox, reaching the relay
// through the in-container forwarder whose channel travels over a streaming exec (forwarder.ts), with
// its own relay session.

import {
  type SandboxRequirements,
  type StopReason,
  type TrialError,
  trialError,
  ZERO_USAGE,
} from "../../record/index.ts";
import type { SandboxProvider } from "../../sandbox/index.ts";
import { type ExecResult, SandboxUnavailableError } from "../../sandbox/index.ts";
import { openedFrom, placedArtefact, skillFile, skillName } from "../artefact.ts";
import type { AgentLimits, Pricing } from "../config.ts";
import { errorMessage } from "../errors.ts";
import { type ResolvedAgentConfig, resolveApiKey } from "../load-config.ts";
import { describeEnd } from "../relay/channel.ts";
import { RELAY_PORT, Relay } from "../relay/server.ts";
import type { RelaySession } from "../relay/session.ts";
import { TrajectoryRecorder } from "../trajectory.ts";
import {
  type Agent,
  type AgentPrepareContext,
  type AgentResult,
  type AgentRunContext,
  abortOutcome,
  runLimits,
} from "../types.ts";
import { harnessFollowUp } from "./follow-up.ts";
import { ForwarderStartError, type RelayForwarder, startForwarder } from "./forwarder.ts";
import type { HarnessAdapter } from "./harness-adapter.ts";
import { harnessDeathError } from "./outcome.ts";

export const AGENT_HOME = "/home/agent";
/** Bytes of the harness's stdout kept (its tail: the final report is at the end). */
const STDOUT_TAIL = 256 * 1024;
/** How long the relay keeps reading replies the exited harness hung up on, for their usage. */
const SETTLE_GRACE_MS = 5000;

export interface InstalledAgentOptions {
  adapter: HarnessAdapter;
  /** Returns the derived image with the harness installed, built or found on the run's provider. */
  ensureImage: (provider: SandboxProvider) => Promise<string>;
  env?: NodeJS.ProcessEnv;
  /** Progress lines (image build, relay retries) for the operator. */
  log?: (line: string) => void;
}

export class InstalledAgent implements Agent {
  readonly name: string;
  readonly harness: string;
  readonly model: string;
  readonly digest: string;
  readonly revision: string;
  readonly pricing: Pricing | null;
  readonly limits: AgentLimits;
  private relay: Relay | null = null;

  constructor(
    readonly config: ResolvedAgentConfig,
    private readonly options: InstalledAgentOptions,
  ) {
    this.name = config.name;
    this.harness = config.harness;
    this.model = config.model;
    this.digest = config.digest;
    this.revision = config.harnessRevision;
    this.pricing = config.pricing;
    this.limits = config;
  }

  async prepare(context: AgentPrepareContext): Promise<SandboxRequirements> {
    const key = resolveApiKey(this.config, this.options.env);
    if (key === undefined) {
      throw new Error(
        `agent "${this.name}" needs the environment variable ${this.config.apiKeyEnv} (its API key)`,
      );
    }
    const image = await this.options.ensureImage(context.provider);
    this.relay ??= await Relay.start({
      provider: this.config.provider,
      upstream: this.config.baseUrl,
      apiKey: key,
      retry: this.config.retry,
      limit: context.limits.of(this.config),
      log: this.options.log,
      maxBodyBytes: this.config.relay.maxBodyBytes,
      maxConnections: this.config.relay.maxConnections,
      upstreamTimeoutMs: this.config.relay.upstreamTimeoutSec * 1000,
      requestTimeoutMs: this.config.relay.requestTimeoutSec * 1000,
      anthropicBetas: this.config.anthropicBetas,
      openaiOrganization: this.config.openaiOrganization,
      openaiProject: this.config.openaiProject,
    });
    return { image };
  }

  async dispose(): Promise<void> {
    await this.relay?.close();
    this.relay = null;
  }

  async run(outer: AgentRunContext): Promise<AgentResult> {
    const recorder = new TrajectoryRecorder(outer.trajectory);
    const ctx = { ...outer, trajectory: recorder };
    const c = this.config;
    const limits = runLimits(ctx.budget);
    if (!this.relay) {
      const error = trialError("internal", "prepare() was not called: no relay");
      recorder.append({ type: "error", ...error });
      return { stopReason: "error", usage: { ...ZERO_USAGE }, error };
    }
    const relay = this.relay;
    const session = relay.openSession({
      tokenBudget: limits.tokenBudget,
      maxTurns: limits.maxTurns,
      pricing: c.pricing,
      trajectory: recorder,
      model: c.model,
      maxOutputTokens: c.maxOutputTokens,
      ...(limits.outputTokenBudget === undefined ? {} : { outputTokenBudget: limits.outputTokenBudget }),
      maxInFlight: c.relay.maxInFlight,
      maxRejectedCalls: c.relay.maxRejectedCalls,
      ...(ctx.ledger ? { ledger: ctx.ledger } : {}),
    });
    const onAbort = () => session.close();
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.runWithSession(ctx, session, limits, relay.socketPath);
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
      relay.closeSession(session);
    }
  }

  private async runWithSession(
    ctx: AgentRunContext & { trajectory: TrajectoryRecorder },
    session: RelaySession,
    limits: ReturnType<typeof runLimits>,
    relaySocket: string,
  ): Promise<AgentResult> {
    const c = this.config;
    const adapter = this.options.adapter;
    const artefact = placedArtefact(ctx);
    const skillPaths: string[] = [];
    const launch = adapter.launch({
      model: c.model,
      maxTurns: limits.maxTurns,
      maxOutputTokens: c.maxOutputTokens,
      temperature: c.temperature,
      systemPrompt: c.systemPrompt,
      relayUrl: `http://127.0.0.1:${RELAY_PORT}`,
      token: session.token,
      home: AGENT_HOME,
    });
    ctx.trajectory.append({
      type: "note",
      kind: "start",
      agent: this.name,
      harness: c.harnessRevision,
      provider: c.provider,
      model: c.model,
      baseUrl: c.baseUrl,
      condition: ctx.condition,
      limits,
      argv: launch.argv,
      instruction: ctx.instruction,
    });
    let exec: ExecResult | null = null;
    let thrown: unknown = null;
    let forwarder: RelayForwarder | null = null;
    try {
      if (artefact && adapter.skillsDir) {
        const dir = `${adapter.skillsDir}/${skillName(artefact.path)}`;
        await ctx.sandbox.writeFile(`${dir}/SKILL.md`, skillFile(artefact));
        skillPaths.push(dir);
        ctx.trajectory.append({
          type: "note",
          kind: "artefact-delivered",
          as: "skill",
          path: `${dir}/SKILL.md`,
        });
      }
      if (!ctx.sandbox.execStream) throw new NoExecStreamError("this sandbox provider cannot stream an exec");
      forwarder = await startForwarder({ execStream: ctx.sandbox.execStream.bind(ctx.sandbox) }, relaySocket);
      exec = await ctx.sandbox.exec(
        ["bash", "-c", `set -o pipefail; "$@" | tail -c ${STDOUT_TAIL}`, "kgate-harness", ...launch.argv],
        {
          env: launch.env,
          stdin: ctx.instruction,
          timeoutSec: limits.timeoutSec,
          maxOutputBytes: STDOUT_TAIL,
          signal: ctx.signal,
        },
      );
    } catch (err) {
      thrown = err;
    }
    // the forwarder's channel ending before the harness did is noticed; it is closed either way
    const channelEnd = forwarder?.end() ?? null;
    forwarder?.stop();
    if (forwarder) {
      ctx.trajectory.append({
        type: "note",
        kind: "relay-channel",
        ended: channelEnd?.reason ?? null,
        message: channelEnd ? describeEnd(channelEnd) : null,
        streams: forwarder.channel.opened,
        refused: forwarder.channel.refused,
        stderr: channelEnd ? forwarder.stderr().slice(-2000) || null : null,
      });
    }
    const report = exec ? adapter.report(exec.stdout) : { facts: {} };
    ctx.trajectory.append({
      type: "note",
      kind: "harness-exit",
      exitCode: exec?.exitCode ?? null,
      timedOut: exec?.timedOut ?? false,
      durationMs: exec?.durationMs ?? null,
      stderr: exec?.stderr.slice(-4000) ?? null,
      ...report.facts,
    });
    // the calls the harness left are read to their end for a while, then charged at their reservation
    await session.settled(SETTLE_GRACE_MS);
    session.close();
    const broken = channelEnd?.reason === "violation" ? describeEnd(channelEnd) : null;
    const { stopReason, error } = this.outcome(ctx.signal, exec, thrown, session, report.stopReason, broken);
    if (error) ctx.trajectory.append({ type: "error", ...error });
    const usage = session.usage();
    ctx.trajectory.append({ type: "note", kind: "stop", stopReason, turns: session.turns, usage });
    const env = this.options.env;
    const followUp = await harnessFollowUp(ctx, c, env, stopReason, report.finalMessage);
    return {
      stopReason,
      usage,
      reportedUsage: session.reportedUsage(),
      artefactListed: artefact !== null && adapter.skillsDir !== null,
      artefactOpened: openedFrom(ctx.trajectory.events, artefact, skillPaths),
      ...(error ? { error } : {}),
      ...(followUp ? { followUp } : {}),
    };
  }

  private outcome(
    signal: AbortSignal,
    exec: ExecResult | null,
    thrown: unknown,
    session: RelaySession,
    reported: StopReason | undefined,
    brokenChannel: string | null,
  ): { stopReason: StopReason; error?: TrialError } {
    if (signal.aborted) return abortOutcome(signal);
    if (exec?.timedOut) return { stopReason: "timeout" };
    if (thrown || !exec) {
      return { stopReason: "error", error: trialError(thrownKind(thrown), errorMessage(thrown)) };
    }
    if (session.limitHit) return { stopReason: session.limitHit };
    if (reported) return { stopReason: reported };
    if (exec.exitCode === 0) return { stopReason: "finish" };
    const error = harnessDeathError({
      harness: this.harness,
      exitCode: exec.exitCode,
      stderr: exec.stderr,
      turns: session.turns,
      brokenChannel,
      infraFailure: session.infraFailure,
      rejection: session.rejection,
    });
    return { stopReason: "error", error };
  }
}

/** No streaming exec: installed harnesses cannot run on this provider (no retry helps). */
class NoExecStreamError extends Error {}

function thrownKind(thrown: unknown): TrialError["kind"] {
  if (thrown instanceof SandboxUnavailableError) return "sandbox";
  if (thrown instanceof ForwarderStartError) return "harness-start";
  if (thrown instanceof NoExecStreamError) return "config";
  return "internal";
}
