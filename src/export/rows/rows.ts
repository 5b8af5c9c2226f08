// The rows of one task (one per condition and variant): verl's fields (data_source, prompt as chat
// messages, ability, reward_model {style: "rule", ground_truth}, extra_info) and the manifest line
// of each. The ground truth is computed now: the reference answer of the conventions the row's
// prompt places (the artefact's; a perturbed variant's own for its row), or, where only code can
// judge, the task's node bundle.
import { type Condition, conditionFileSet, type LoadedTask, variantOf } from "../../task/index.ts";
import { type ConventionSet, type LoadedVerifier, parseAnswers, solveRaw } from "../../verify/index.ts";
import type { TaskCalibration } from "../calibration.ts";
import type { ManifestLine } from "../manifest-lines.ts";
import { GROUND_TRUTH_VERSION, type GroundTruth, type RewardScheme } from "./ground-truth.ts";
import { type ChatMessage, rowPrompt } from "./prompt.ts";
import { scorerOf } from "./scorer.ts";

export interface VerlRow {
  data_source: string;
  prompt: ChatMessage[];
  ability: string;
  reward_model: { style: "rule"; ground_truth: string };
  extra_info: Record<string, string | number | null>;
}

export interface TaskRowsInput {
  task: LoadedTask;
  loaded: LoadedVerifier;
  conditions: readonly Condition[];
  /** The reward without the row's own part (specGiven). */
  reward:
    | { scheme: "binary" }
    | {
        scheme: "ignorance-aware";
        schedule: Extract<RewardScheme, { scheme: "ignorance-aware" }>["schedule"];
      };
  split: string;
  canary: string;
  kgateVersion: string;
  calibration: (TaskCalibration & { run: string }) | null;
  /** Folder of the task's node bundle, relative to the reward module. */
  bundle: string;
}

/** The conventions whose answer a row's prompt calls for: a perturbed variant's own, else the artefact's. */
export function referenceOf(task: LoadedTask, condition: Condition): ConventionSet {
  const variant = variantOf(condition);
  return variant !== undefined && task.spec.artefact.variants[variant]?.kind === "perturbed"
    ? `variant:${variant}`
    : "artefact";
}

function schemeOf(input: TaskRowsInput, condition: Condition): RewardScheme {
  if (input.reward.scheme === "binary") return { scheme: "binary" };
  return { ...input.reward, specGiven: condition !== "-A" };
}

function groundTruth(input: TaskRowsInput, condition: Condition): GroundTruth {
  const { task, loaded } = input;
  const reference = referenceOf(task, condition);
  const base = {
    kgate: GROUND_TRUTH_VERSION,
    task: task.id,
    condition,
    reference,
    reward: schemeOf(input, condition),
  };
  const scorer = scorerOf(task.spec.outputs, loaded);
  if (scorer === "judge") {
    throw new Error(
      `task "${task.id}" has judge criteria: a model grades them, so its rows have no offline reward; export it with kgate export harbor --for-training`,
    );
  }
  if (scorer === "node") return { ...base, scorer: "node", bundle: input.bundle };
  const answers = solveRaw(task, loaded, reference);
  parseAnswers(task, loaded, reference, answers); // throws when the answer breaks the output contract
  return {
    ...base,
    scorer: "python",
    outputs: task.spec.outputs as unknown as GroundTruth["outputs"],
    answers,
  };
}

export function taskRows(
  input: TaskRowsInput,
): Array<{ row: VerlRow; line: Omit<ManifestLine, "path" | "row"> }> {
  const { task } = input;
  return input.conditions.map((condition) => {
    const truth = groundTruth(input, condition);
    const fileSet = conditionFileSet(task, condition);
    const row: VerlRow = {
      data_source: `kgate/${task.id}`,
      prompt: rowPrompt(task, condition, truth.reward),
      ability: `knowledge-gated/${task.spec.gate}`,
      reward_model: { style: "rule", ground_truth: JSON.stringify(truth) },
      extra_info: {
        split: input.split,
        index: 0,
        task: task.id,
        condition,
        variant: variantOf(condition) ?? null,
        reference: truth.reference,
        scorer: truth.scorer,
        reward: truth.reward.scheme,
        decision: input.calibration?.decision ?? null,
        canary: input.canary,
        kgate_version: input.kgateVersion,
      },
    };
    const line = {
      task: task.id,
      condition,
      variant: variantOf(condition) ?? null,
      split: input.split,
      form: "row" as const,
      digests: {
        task: task.digests.task,
        instruction: task.digests.instruction,
        fileSet: fileSet.digest,
        artefact: fileSet.artefactDigest,
      },
      calibration: input.calibration && {
        run: input.calibration.run,
        decision: input.calibration.decision,
        borderline: input.calibration.borderline,
        cells: input.calibration.cells,
      },
      reward: truth.reward.scheme,
      scorer: truth.scorer,
      images: null,
      canary: input.canary,
      kgateVersion: input.kgateVersion,
    };
    return { row, line };
  });
}
