// What a run's summary says in words beside its figures: the retain rule and the screening rule, and
// what the figures do not show (the retained row's selection, per-task bounds that do not hold jointly).
import type { CellSummary, TaskSummary } from "../report/index.ts";
import type { Plan } from "./plan.ts";
import { clauseText, isExtreme } from "./requirement.ts";
import { describeSequential } from "./sequential.ts";

/** The retain rule and the screening rule, in words. */
export function describeRule(plan: Plan): string[] {
  const rule = plan.specs.filter((s) => s.require && !s.control);
  const controls = plan.specs.filter((s) => s.require && s.control);
  const lines = [
    `retain when ${rule.map((s) => clauseText(s.name, s.require!)).join(" and ") || "(no clause)"}` +
      (controls.length > 0
        ? `; controls must fail like -A: ${controls.map((s) => clauseText(s.name, s.require!)).join(", ")}`
        : ""),
  ];
  if (plan.mode === "fixed") {
    lines.push(
      `fixed n = ${plan.n} trials per cell; a clause is met by the point estimate (the paper's reading: 3/5 meets >= 0.6); ` +
        (plan.strict
          ? "--strict: a clause that one trial would flip makes the decision revise"
          : "a clause met by one trial is retained with a borderline flag") +
        "; revise when every missed rule clause misses by one trial or a control is not met, discard when one misses by more; " +
        'a "= 0" clause is missed by any pass',
    );
  } else {
    lines.push(describeSequential(plan.sequential, plan.n));
  }
  lines.push(
    plan.mode === "fixed"
      ? "infrastructure errors and unverified trials are left out of the rates; a decision other than discard needs " +
          `n = ${plan.n} valid trials in every cell: a shorter cell makes it incomplete, unless its clause is missed whatever its missing trials show (discard)`
      : "infrastructure errors and unverified trials are left out of the rates; a cell with no valid trial makes the decision incomplete",
    plan.mode === "fixed"
      ? "intervals: Wilson 95% score intervals of each cell's passes out of its valid trials"
      : "intervals: naive Wilson 95% intervals, computed as if each cell's trial count had been fixed in advance; " +
          "sequential stopping makes them unreliable, so decisions rest on the SPRT and the exact one-sided bounds, not on them",
    "aggregate rows pool the trials of every task in a column into one rate (not a mean of per-task rates); " +
      "their intervals treat the pooled trials as independent",
  );
  return lines;
}

/**
 * What the figures do not show: the retained row's intervals are computed on the trials that
 * selected those tasks, and each met "= 0" bound holds per task, not for all of them at once.
 */
export function caveatsOf(
  tasks: readonly TaskSummary[],
  cells: readonly CellSummary[],
  alpha = 0.05,
): string[] {
  const retained = new Set(tasks.filter((t) => t.decision === "retain").map((t) => t.id));
  if (retained.size === 0) return [];
  const out = [
    `the "retained (${retained.size} tasks)" row's intervals are computed on the same trials that selected those tasks: ` +
      "they are not evidence of the retained set's pass rates (as the paper, which gives no retained-set figures as evidence); " +
      "only a fresh batch of trials on those tasks would be",
  ];
  const bounds = cells.filter(
    (c) => retained.has(c.task) && c.clause?.verdict === "met" && c.require && isExtreme(c.require),
  );
  if (bounds.length > 1) {
    const level = 1 - alpha;
    const joint = level ** bounds.length;
    out.push(
      `each met "= 0" clause's one-sided ${Math.round(level * 1000) / 10}% bound holds per task, not jointly: ` +
        `for all ${bounds.length} of them (${retained.size} retained tasks) at once, about ${level}^${bounds.length} = ` +
        `${Math.round(joint * 1000) / 10}% if the cells are independent`,
    );
  }
  return out;
}
