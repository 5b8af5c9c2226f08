// The prospective choice before a -A trial, in a single turn of the configuration's own model (no
// tools, no sandbox): ANSWER_DIRECTLY, REQUEST_SPEC (the trial then gets the artefact) or DECLINE.
import {
  type Agent,
  asTrialError,
  BuiltinAgent,
  createConfiguredChatModel,
  InstalledAgent,
  UsageMeter,
} from "../agents/index.ts";
import type { ProspectiveOutcome, TrialBudget } from "../record/index.ts";
import type { LoadedTask } from "../task/index.ts";
import { DEFAULT_PAYOFF, type PayoffSchedule } from "./payoff.ts";
import { type AskTurn, askQuestion, MAX_REPLY_CHARS, prospectiveQuestion } from "./questions.ts";

type Chosen = Omit<ProspectiveOutcome, "artefactPlaced" | "placedDigest">;
type ChatModel = Awaited<ReturnType<BuiltinAgent["chatModel"]>>;
type ChatMessage = Parameters<ChatModel["complete"]>[0]["messages"][number];
type AssistantPart = Extract<ChatMessage, { role: "assistant" }>["parts"][number];

const textOf = (parts: readonly AssistantPart[]) =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");

/** Asks one agent the prospective question for a task; failures are recorded (choice null), never thrown. */
export async function askProspectiveChoice(
  model: ChatModel,
  instruction: string,
  options: {
    /** Bounds the turn (with its re-ask); an abort is recorded as the outcome's error. */
    signal?: AbortSignal;
    schedule?: PayoffSchedule;
    maxOutputTokens?: number;
    pricing?: ConstructorParameters<typeof UsageMeter>[0];
  } = {},
): Promise<Chosen> {
  const meter = new UsageMeter(options.pricing ?? null);
  const messages: ChatMessage[] = [];
  const turns: Chosen["turns"] = [];
  const ask: AskTurn = async (message) => {
    messages.push({ role: "user", text: message });
    const reply = await model.complete({
      system: null,
      messages,
      tools: [],
      maxOutputTokens: Math.min(options.maxOutputTokens ?? 256, 256),
      signal: options.signal,
    });
    meter.add(reply.usage);
    messages.push({ role: "assistant", parts: reply.parts });
    const text = textOf(reply.parts);
    turns.push({ probe: "prospective", message, reply: text.slice(0, MAX_REPLY_CHARS * 4) });
    return text;
  };
  const schedule = options.schedule ?? DEFAULT_PAYOFF;
  try {
    const outcome = await askQuestion(ask, prospectiveQuestion(instruction, schedule));
    return { choice: outcome.choice, turns, usage: meter.snapshot(), error: null, schedule };
  } catch (err) {
    return { choice: null, turns, usage: meter.snapshot(), error: asTrialError(err), schedule };
  }
}

/** The choice before a -A trial, bounded by that trial's budget (its wall clock) and the run's cancellation. */
export type ProspectiveHook = (
  task: LoadedTask,
  budget: TrialBudget,
  cancel?: AbortSignal,
) => Promise<Chosen>;

/**
 * The trial runner's hook for an agent with a model configuration: the built-in loop, or an
 * installed harness (its configuration's own client, host-side). Undefined for any other agent.
 */
export function prospectiveHookFor(
  agent: Agent,
  schedule: PayoffSchedule = DEFAULT_PAYOFF,
): ProspectiveHook | undefined {
  const configured =
    agent instanceof BuiltinAgent
      ? { config: agent.config, model: () => agent.chatModel() }
      : agent instanceof InstalledAgent
        ? { config: agent.config, model: () => createConfiguredChatModel(agent.config) }
        : undefined;
  if (!configured) return undefined;
  const { config } = configured;
  return async (task, budget, cancel) => {
    // The choice is one short turn: bounded by the trial's wall clock and the run's cancellation.
    const timeout = AbortSignal.timeout(budget.wallClockSec * 1000);
    const signal = cancel ? AbortSignal.any([cancel, timeout]) : timeout;
    let model: ChatModel;
    try {
      model = await configured.model();
    } catch (err) {
      const usage = new UsageMeter(null).snapshot();
      return { choice: null, turns: [], usage, error: asTrialError(err), schedule };
    }
    return askProspectiveChoice(model, task.instruction.toString("utf8"), {
      signal,
      schedule,
      maxOutputTokens: config.maxOutputTokens,
      pricing: config.pricing,
    });
  };
}

/** prospectiveHookFor for `kgate run`, where an agent without a model configuration is the user's error. */
export function prospectiveHook(agent: Agent, schedule: PayoffSchedule = DEFAULT_PAYOFF): ProspectiveHook {
  const hook = prospectiveHookFor(agent, schedule);
  if (!hook)
    throw new Error(
      `the prospective choice needs a model configuration (built-in loop or installed harness); ${agent.name} runs ${agent.harness}`,
    );
  return hook;
}
