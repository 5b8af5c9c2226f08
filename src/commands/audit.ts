// `kgate audit [task...]` (ids or globs): the static leak audit of instructions and environments, as text, JSON or
// SARIF; `--staged` audits the git index's content of the tasks a staged change touches.
import path from "node:path";
// The API's light face (kgate audit is the pre-commit hook): no task schemas on this path.
import { type AuditReport, audit, GitError } from "../api/audit.ts";
import { UsageError } from "../errors.ts";
import { packageInfo } from "../package-info.ts";
import { relativeToProject } from "../project.ts";
import type { CommandContext } from "./context.ts";
import { expandTaskGlobs } from "./task-ids.ts";

export interface AuditOptions {
  format: "text" | "json" | "sarif";
  json?: boolean;
  staged?: boolean;
  show?: boolean;
}

/** The audit's modules (rendering), loaded once the audit has run. */
const auditModules = () => import("../audit/index.ts");

async function auditOf(
  ctx: CommandContext,
  requested: string[],
  options: AuditOptions,
): Promise<AuditReport> {
  const tasks = expandTaskGlobs(ctx.paths, requested);
  try {
    const report = await audit({ paths: ctx.paths }, { tasks, staged: options.staged === true });
    if (options.staged && report.tasks.length === 0)
      ctx.stderr.write("kgate audit --staged: no staged change touches a task\n");
    return report;
  } catch (err) {
    if (err instanceof GitError) throw new UsageError(`--staged: ${err.message}`);
    throw err;
  }
}

/** Why `--staged` (the pre-commit hook) refuses a commit, and the two ways forward. */
function stagedRefusal(ctx: CommandContext, report: AuditReport): string {
  const leaking = report.tasks.filter((t) => t.counts.error > 0).map((t) => t.id);
  const files = leaking.map((id) => relativeToProject(ctx.paths, path.join(ctx.paths.audits, `${id}.json`)));
  return [
    `kgate audit --staged: the commit is refused: ${report.counts.error} error finding(s) in ${leaking.join(", ")} (above).`,
    "  fix: take the gated value out of the named file and line (rephrase it, or move it into the artefact), then git add it again;",
    `  or, for a false alarm, allowlist the finding: add {"fingerprint": "<its fingerprint above>", "reason": "<why it is no leak>"} to "allowlist" in ${files.join(", ")} (docs/audit.md).`,
    "",
  ].join("\n");
}

export async function run(ctx: CommandContext, ids: string[], options: AuditOptions): Promise<number> {
  const format = options.json ? "json" : options.format;
  const report = await auditOf(ctx, ids, options);
  const { exitCodeOf, formatSarif, formatText, redactReport } = await auditModules();
  const shown = redactReport(report, options.show === true);
  if (format === "json") {
    ctx.stdout.write(
      `${JSON.stringify({ root: ctx.paths.root, ...shown, exitCode: exitCodeOf(report) }, null, 2)}\n`,
    );
  } else if (format === "sarif") {
    ctx.stdout.write(formatSarif(shown, packageInfo().version));
  } else {
    const colour = "isTTY" in ctx.stdout && ctx.stdout.isTTY === true && !process.env.NO_COLOR;
    ctx.stdout.write(formatText(report, { show: options.show === true, colour }));
  }
  const code = exitCodeOf(report);
  if (options.staged && code === 1) ctx.stderr.write(stagedRefusal(ctx, report));
  return code;
}
