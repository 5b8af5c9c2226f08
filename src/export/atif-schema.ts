// The part of Harbor's Agent Trajectory Interchange Format (ATIF, RFC 0001) that kgate writes, as
// zod schemas: a trajectory of system, user and agent steps with tool calls, observations and
// token metrics. Closed objects, as Harbor's models are; docs/export.md#trajectories-in-atif.
import { z } from "zod";

/** The version kgate writes: every field below exists in it, and readers of v1.5 to v1.8 accept it. */
export const ATIF_VERSION = "ATIF-v1.6";

const Extra = z.record(z.string(), z.unknown());
const Count = z.number().int().nonnegative();

export const AtifToolCall = z.strictObject({
  tool_call_id: z.string().min(1),
  function_name: z.string().min(1),
  /** A JSON object, possibly empty. */
  arguments: z.record(z.string(), z.unknown()),
});

export const AtifObservationResult = z.strictObject({
  /** The tool call of the same step this result answers; absent for output of no tool call. */
  source_call_id: z.string().optional(),
  content: z.string().optional(),
});

export const AtifMetrics = z.strictObject({
  /** Every input token of the call, cached and uncached (ATIF v1.2 and later). */
  prompt_tokens: Count.optional(),
  completion_tokens: Count.optional(),
  /** The part of prompt_tokens read from a prompt cache. */
  cached_tokens: Count.optional(),
  cost_usd: z.number().nonnegative().optional(),
  /** Provider-specific counts, as the RFC asks (cache_creation_input_tokens). */
  extra: Extra.optional(),
});

export const AtifStep = z.strictObject({
  /** 1, 2, 3, ... in order. */
  step_id: z.number().int().positive(),
  timestamp: z.iso.datetime().optional(),
  source: z.enum(["system", "user", "agent"]),
  /** Agent steps only. */
  model_name: z.string().optional(),
  message: z.string(),
  /** Agent steps only. */
  tool_calls: z.array(AtifToolCall).optional(),
  observation: z.strictObject({ results: z.array(AtifObservationResult) }).optional(),
  /** Agent steps only. */
  metrics: AtifMetrics.optional(),
  extra: Extra.optional(),
});

export const AtifTrajectory = z.strictObject({
  schema_version: z.literal(ATIF_VERSION),
  session_id: z.string(),
  agent: z.strictObject({
    name: z.string(),
    version: z.string(),
    model_name: z.string().optional(),
    extra: Extra.optional(),
  }),
  steps: z.array(AtifStep).min(1),
  notes: z.string().optional(),
  final_metrics: z
    .strictObject({
      total_prompt_tokens: Count.optional(),
      total_completion_tokens: Count.optional(),
      total_cached_tokens: Count.optional(),
      total_cost_usd: z.number().nonnegative().optional(),
      total_steps: Count.optional(),
      extra: Extra.optional(),
    })
    .optional(),
  extra: Extra.optional(),
});

export type AtifToolCall = z.infer<typeof AtifToolCall>;
export type AtifObservationResult = z.infer<typeof AtifObservationResult>;
export type AtifMetrics = z.infer<typeof AtifMetrics>;
export type AtifStep = z.infer<typeof AtifStep>;
export type AtifTrajectory = z.infer<typeof AtifTrajectory>;
