// A kgate trajectory's events as ATIF steps: the instruction as the first user step, each model
// turn an agent step holding its tool calls and, as its observation, their results; texts the
// harness sent as user or system steps; every other event (notes, errors) kept aside, unchanged.
import type { TrajectoryEvent } from "../record/index.ts";
import type { AtifMetrics, AtifObservationResult, AtifStep, AtifToolCall } from "./atif-schema.ts";

export interface AtifSteps {
  steps: AtifStep[];
  /** Events that are no step of the conversation (stop, retries, errors, harness notes). */
  other: TrajectoryEvent[];
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const count = (v: unknown): number =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.round(v) : 0;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const timestamp = (e: TrajectoryEvent) => (Number.isNaN(Date.parse(e.at)) ? undefined : e.at);

/** A model call's usage as ATIF metrics: prompt_tokens counts every input token, cached ones included. */
function metricsOf(usage: unknown): AtifMetrics | undefined {
  if (!isObject(usage)) return undefined;
  const cacheRead = count(usage.cacheRead);
  const cacheWrite = count(usage.cacheWrite);
  return {
    prompt_tokens: count(usage.input) + cacheRead + cacheWrite,
    completion_tokens: count(usage.output),
    cached_tokens: cacheRead,
    ...(cacheWrite > 0 ? { extra: { cache_creation_input_tokens: cacheWrite } } : {}),
  };
}

/** What a tool result showed: its output, or a command's exit code, stdout and stderr (the oracle's). */
function contentOf(e: TrajectoryEvent): string {
  const output = e.output;
  if (typeof output === "string") return output;
  if (output !== undefined) return JSON.stringify(output);
  const parts = [`exit code ${String(e.exitCode ?? "unknown")}`];
  if (text(e.stdout)) parts.push(`stdout:\n${e.stdout}`);
  if (text(e.stderr)) parts.push(`stderr:\n${e.stderr}`);
  return parts.join("\n");
}

class StepBuilder {
  readonly steps: AtifStep[] = [];
  readonly other: TrajectoryEvent[] = [];
  /** Calls without a result yet, oldest first: the oracle's results carry no id. */
  private readonly open: Array<{ step: AtifStep; call: AtifToolCall; tool: string }> = [];
  private calls = 0;

  add(step: Omit<AtifStep, "step_id">): AtifStep {
    const made = { step_id: this.steps.length + 1, ...step } as AtifStep;
    this.steps.push(made);
    return made;
  }

  model(e: TrajectoryEvent): void {
    const metrics = metricsOf(e.usage);
    this.add({
      timestamp: timestamp(e),
      source: "agent",
      ...(text(e.model) ? { model_name: text(e.model) } : {}),
      message: text(e.text) ?? "",
      ...(metrics ? { metrics } : {}),
      extra: {
        kgate: { turn: e.turn ?? null, stop_reason: e.stopReason ?? null, duration_ms: e.durationMs ?? null },
      },
    });
  }

  /** The agent step a call belongs to: the latest one, or a new one for an action without a model turn (the oracle's). */
  private stepFor(e: TrajectoryEvent): AtifStep {
    const last = this.steps.at(-1);
    if (last?.source === "agent" && (last.metrics !== undefined || e.id !== undefined)) return last;
    return this.add({ timestamp: timestamp(e), source: "agent", message: "" });
  }

  toolCall(e: TrajectoryEvent): void {
    const step = this.stepFor(e);
    step.tool_calls ??= [];
    const calls = step.tool_calls;
    this.calls += 1;
    let id = text(e.id) || `call-${this.calls}`;
    if (calls.some((c) => c.tool_call_id === id)) id = `${id}-${this.calls}`;
    const name = text(e.name) || text(e.tool) || "tool";
    const input = e.input ?? (e.command !== undefined ? { command: e.command } : {});
    const call = { tool_call_id: id, function_name: name, arguments: isObject(input) ? input : { input } };
    calls.push(call);
    this.open.push({ step, call, tool: name });
  }

  /** Appends one result to a step's observation, made on the first. */
  private observe(step: AtifStep, result: AtifObservationResult): void {
    step.observation ??= { results: [] };
    step.observation.results.push(result);
  }

  toolResult(e: TrajectoryEvent): void {
    const id = text(e.id);
    const tool = text(e.name) || text(e.tool);
    const index = this.open.findIndex((o) => (id ? o.call.tool_call_id === id : !tool || o.tool === tool));
    const content = contentOf(e);
    if (index >= 0) {
      const [{ step, call }] = this.open.splice(index, 1) as [(typeof this.open)[number]];
      this.observe(step, { source_call_id: call.tool_call_id, content });
      return;
    }
    // A result whose call is not in the trajectory (the relay caps what it narrates): on the latest
    // agent step without a call id, or on a system step before any.
    const last = [...this.steps].reverse().find((s) => s.source === "agent");
    const step = last ?? this.add({ timestamp: timestamp(e), source: "system", message: "" });
    this.observe(step, { content });
  }
}

/**
 * The steps of one trial: `instruction` (when known) first, as the user's message, then the events
 * in order. `instruction` also suppresses a harness-context note that only repeats it.
 */
export function atifSteps(
  events: readonly TrajectoryEvent[],
  instruction: { text: string; at: string } | null,
): AtifSteps {
  const b = new StepBuilder();
  if (instruction) b.add({ timestamp: instruction.at, source: "user", message: instruction.text });
  for (const e of events) {
    if (e.type === "model") b.model(e);
    else if (e.type === "tool-call") b.toolCall(e);
    else if (e.type === "tool-result") b.toolResult(e);
    else if (e.type === "note" && e.kind === "harness-system-prompt" && text(e.system) !== undefined)
      b.add({ timestamp: timestamp(e), source: "system", message: text(e.system)! });
    else if (
      e.type === "note" &&
      (e.kind === "user" || e.kind === "harness-context") &&
      text(e.text) !== undefined
    ) {
      if (instruction && text(e.text)!.trim() === instruction.text.trim()) continue;
      b.add({
        timestamp: timestamp(e),
        source: "user",
        message: text(e.text)!,
        extra: { kgate: { kind: e.kind } },
      });
    } else b.other.push(e);
  }
  return { steps: b.steps, other: b.other };
}
