// Cells: the configured cell specs expanded for each task (a `perturbed` spec becomes one cell per
// perturbed variant the task declares), keyed the way trial records identify them.
import { z } from "zod";
import { Condition, type LoadedTask } from "../task/index.ts";
import type { CellSpec } from "./config.ts";
import { Requirement } from "./requirement.ts";

export const PlannedCell = z.object({
  /** `<task> <agent> <condition>`: what a TrialRecord carries. */
  key: z.string(),
  task: z.string(),
  /** The cell spec's name (a column of Table 1). */
  spec: z.string(),
  /** The name shown for this cell: the spec's, plus the variant when a spec expands to several. */
  label: z.string(),
  agent: z.string(),
  condition: Condition,
  require: Requirement.nullable(),
  control: z.boolean(),
});
export type PlannedCell = z.infer<typeof PlannedCell>;

export function cellKey(task: string, agent: string, condition: string): string {
  return `${task} ${agent} ${condition}`;
}

export interface ExpandedCells {
  cells: PlannedCell[];
  /** Worded notes per task, e.g. a control that could not be formed. */
  notes: string[];
}

/** The cells of one task, in spec order; throws on a variant the task lacks or a duplicate cell. */
export function expandCells(task: LoadedTask, specs: readonly CellSpec[]): ExpandedCells {
  const cells: PlannedCell[] = [];
  const notes: string[] = [];
  for (const spec of specs) {
    const make = (condition: Condition, label: string): PlannedCell => ({
      key: cellKey(task.id, spec.agent, condition),
      task: task.id,
      spec: spec.name,
      label,
      agent: spec.agent,
      condition,
      require: spec.require ?? null,
      control: spec.control,
    });
    if (spec.condition === "perturbed") {
      const perturbed = task.variants.filter((v) => v.kind === "perturbed");
      if (perturbed.length === 0)
        notes.push(`no perturbed variant declared: cell "${spec.name}" is left out`);
      for (const v of perturbed) {
        cells.push(make(`variant:${v.name}`, perturbed.length === 1 ? spec.name : `${spec.name}:${v.name}`));
      }
      continue;
    }
    if (spec.condition.startsWith("variant:")) {
      const name = spec.condition.slice("variant:".length);
      if (!task.variants.some((v) => v.name === name)) {
        const known = task.variants.map((v) => v.name).join(", ") || "none";
        throw new Error(
          `cell "${spec.name}": task "${task.id}" has no variant "${name}" (declared: ${known})`,
        );
      }
    }
    cells.push(make(spec.condition, spec.name));
  }
  const seen = new Map<string, string>();
  for (const cell of cells) {
    const other = seen.get(cell.key);
    if (other) {
      throw new Error(
        `cells "${other}" and "${cell.label}" both run ${cell.agent} ${cell.condition} on task "${task.id}": ` +
          "they would be the same trials, so one configuration cannot stand in both cells; give each cell its own " +
          "(--frontier <agent> --mid <another>; a second configuration of the same model under another name in " +
          "kgate.config.json counts), or redefine the cells with --cell",
      );
    }
    seen.set(cell.key, cell.label);
  }
  return { cells, notes };
}
