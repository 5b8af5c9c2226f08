// `kgate list`: every task with its validity and problems; one broken task never hides the others.
import { pc } from "../colours.ts";
import { EXIT_FAILED, EXIT_OK } from "../errors.ts";
import { formatProblem, loadAllTasks, type TaskLoadResult } from "../task/index.ts";
import type { CommandContext } from "./context.ts";

export function listEntry(result: TaskLoadResult) {
  const problems = result.ok ? result.warnings : [...result.errors, ...result.warnings];
  return {
    id: result.id,
    valid: result.ok,
    ...(result.ok
      ? {
          title: result.task.spec.title,
          gate: result.task.spec.gate,
          domain: result.task.spec.domain,
          variants: result.task.variants.map((v) => ({ name: v.name, kind: v.kind })),
          digests: result.task.digests,
        }
      : {}),
    problems: problems.map((p) => ({ ...p, text: formatProblem(p) })),
  };
}

export async function run(ctx: CommandContext, options: { json?: boolean }): Promise<number> {
  const results = loadAllTasks(ctx.paths);
  const entries = results.map(listEntry);
  if (options.json) {
    ctx.stdout.write(`${JSON.stringify({ root: ctx.paths.root, tasks: entries }, null, 2)}\n`);
  } else if (entries.length === 0) {
    ctx.stdout.write(`no tasks in ${ctx.paths.tasks} (create one with: kgate new <id>)\n`);
  } else {
    for (const e of entries) {
      const status = e.valid ? pc.green("valid  ") : pc.red("invalid");
      const detail = e.valid ? `${e.gate} · ${e.domain} · ${e.title}` : "";
      ctx.stdout.write(`${status} ${e.id}  ${pc.dim(detail)}\n`);
      for (const p of e.problems) {
        const mark = p.severity === "error" ? pc.red("error") : pc.yellow("warning");
        ctx.stdout.write(`        ${mark} ${p.text}\n`);
      }
    }
    const invalid = entries.filter((e) => !e.valid).length;
    ctx.stdout.write(`${entries.length} task(s), ${invalid} invalid\n`);
  }
  return entries.some((e) => !e.valid) ? EXIT_FAILED : EXIT_OK;
}
