// The artefact as a skill (BenchFlow / SkillsBench layout): the SKILL.md kgate's installed
// harnesses receive, built from the bytes the condition places (none under -A), named after the
// task's artefact: <task>-<artefact file name> (bom-costing-rollup-conventions), so that a skill
// catalog of several tasks tells them apart and kgate new's "specification" says whose it is.
import { skillFile, skillName } from "../agents/index.ts";
import { type Condition, extractCanary, type LoadedTask, variantOf } from "../task/index.ts";

export interface SkillFolder {
  name: string;
  text: string;
}

export function skillFolder(task: LoadedTask, condition: Condition): SkillFolder | null {
  if (condition === "-A") return null;
  const variant = variantOf(condition);
  const bytes =
    variant === undefined ? task.artefact.bytes : task.variants.find((v) => v.name === variant)?.bytes;
  if (!bytes) throw new Error(`task "${task.id}" has no variant "${variant}"`);
  const text = bytes.toString("utf8");
  const placed = {
    path: task.spec.artefact.path,
    description: task.spec.artefact.description,
    text,
    canary: extractCanary(text) ?? null,
  };
  const name = exportSkillName(task.id, placed.path);
  return { name, text: skillFile(placed, name) };
}

/** <task>-<artefact file name>, or the file name alone when it already starts with the task id. */
export function exportSkillName(task: string, artefactPath: string): string {
  const base = skillName(artefactPath);
  return base.startsWith(task) ? base : `${task}-${base}`.slice(0, 64).replace(/-+$/, "");
}
