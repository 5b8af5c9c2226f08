// The exam report as text: one line per (N, scheme, order, prompt) with score, coverage and the
// correlations (mean over exams [95% bootstrap interval]).
import { budgetLine } from "../cost/index.ts";
import { errorKindsLine } from "../record/index.ts";
import type { ExamSummary, GroupSummary } from "./summary.ts";

type Est = GroupSummary["score"];

function est(e: Est, digits = 2): string {
  if (!e) return "-";
  return `${e.mean.toFixed(digits)} [${e.low.toFixed(digits)}, ${e.high.toFixed(digits)}]`;
}

export function formatExamSummary(s: ExamSummary): string {
  const lines = [
    `exam run ${s.runId}: ${s.kind} from ${s.pool.name} (sha256 ${s.pool.digest.slice(0, 12)}), agent ${s.agent.name} (${s.agent.model ?? "no model"}, config ${s.agent.digest.slice(0, 12)}), kgate ${s.kgateVersion}`,
    `budget B = ${s.budget} tokens, tau = ${s.tau}; ${s.finished} of ${s.planned} exams finished, ${s.failed} failed (rerun with --resume ${s.runId})`,
  ];
  if (s.budget)
    lines.push(
      budgetLine(s.budget, {
        unit: "exam",
        shortfall: "those exams were not run and have no result",
        resume: `kgate exam --resume ${s.runId}`,
      }),
    );
  const kinds = errorKindsLine(s.errors);
  if (kinds) lines.push(`failed exams by error kind: ${kinds}`);
  lines.push("");
  for (const g of s.groups) {
    lines.push(
      `N=${g.n} ${g.scheme}/${g.order}/${g.prompt} (${g.exams} exams): score ${est(g.score)}, coverage ${est(g.coverage)}, zero-token ${est(g.zeroRate)}`,
      `  rho effort~position ${est(g.stats.effortPosition)}, effort~value ${est(g.stats.effortValue)}, effort~difficulty ${est(g.stats.effortDifficulty)}`,
      `  rho order~position ${est(g.stats.orderPosition)}, partial effort~value | position, difficulty ${est(g.stats.partialEffortValue)}, density overlap ${est(g.stats.densityOverlap)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
