// reward.json of a training export: `reward` (1 when kgate's verdict passes, else 0) and, beside it,
// the metrics a trainer logs (Harbor reads every key of reward.json as a reward; verifiers records the
// keys other than `reward` as metrics; both need finite numbers): each criterion (1 passed, 0 not),
// the criteria's mean by weight, and the failure attribution one-hot over every label the task can
// give, so that every trial of a task writes the same keys.
import type { TaskSpec } from "../task/index.ts";
import type { Verdict } from "../verify/index.ts";

export function rewardMetrics(verdict: Verdict, spec: TaskSpec): Record<string, number> {
  const perturbed = Object.entries(spec.artefact.variants)
    .filter(([, declared]) => declared.kind === "perturbed")
    .map(([name]) => `perturbed-convention:${name}`);
  const metrics: Record<string, number> = {
    reward: verdict.status === "pass" ? 1 : 0,
    criteria_mean: verdict.score,
    unverified: verdict.status === "unverified" ? 1 : 0,
  };
  for (const c of verdict.criteria) metrics[`criterion: ${c.name}`] = c.passed ? 1 : 0;
  for (const label of ["default-convention", ...perturbed, "format", "other"]) {
    metrics[`failure: ${label}`] = verdict.attribution === label ? 1 : 0;
  }
  return metrics;
}
