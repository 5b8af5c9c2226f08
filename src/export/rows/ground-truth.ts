// The ground truth of an exported row (verl's reward_model.ground_truth, a JSON string): the task,
// the condition, whose answer is right, the reward scheme, and either the reference answer with the
// output contract (scored by the Python module) or the folder of the task's node bundle (outputs
// judged by rubric criteria, which only code decides). Computed at export time.
import { z } from "zod";
import { PayoffSchedule } from "../../record/index.ts";

export const GROUND_TRUTH_VERSION = 1 as const;

export const RewardScheme = z.discriminatedUnion("scheme", [
  z.object({ scheme: z.literal("binary") }).strict(),
  z
    .object({
      scheme: z.literal("ignorance-aware"),
      schedule: PayoffSchedule,
      /** The row's prompt holds a specification (+A, a variant): a request for it is an answer withheld. */
      specGiven: z.boolean(),
    })
    .strict(),
]);
export type RewardScheme = z.infer<typeof RewardScheme>;

export const GroundTruth = z
  .object({
    kgate: z.literal(GROUND_TRUTH_VERSION),
    task: z.string(),
    condition: z.string(),
    /** The convention set whose answer is right: `artefact`, or `variant:<name>` for a perturbed row. */
    reference: z.string(),
    scorer: z.enum(["python", "node"]),
    reward: RewardScheme,
    /** python: the declared outputs (task.json's, defaults filled in) and the reference answer per path. */
    outputs: z.array(z.record(z.string(), z.unknown())).optional(),
    answers: z.record(z.string(), z.unknown()).optional(),
    /** node: the task's bundle folder, relative to the reward module. */
    bundle: z.string().optional(),
  })
  .strict();
export type GroundTruth = z.infer<typeof GroundTruth>;
