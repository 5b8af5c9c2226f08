// The artefact as a harness meets it: which text a condition placed, and the skill folder that
// installed harnesses discover (SKILL.md with name + description front matter). Nothing under -A.
import path from "node:path";
import type { TrajectoryEvent } from "../record/index.ts";
import { extractCanary, variantOf } from "../task/index.ts";
import { artefactOpened } from "./trajectory.ts";
import type { AgentRunContext } from "./types.ts";

export interface PlacedArtefact {
  /** Path in the sandbox work directory. */
  path: string;
  description: string;
  text: string;
  canary: string | null;
}

/** The artefact or variant this run's condition placed; null under -A. */
export function placedArtefact(
  ctx: Pick<AgentRunContext, "artefact" | "condition" | "task">,
): PlacedArtefact | null {
  if (!ctx.artefact) return null;
  const variant = variantOf(ctx.condition);
  const bytes =
    variant === undefined
      ? ctx.task.artefact.bytes
      : ctx.task.variants.find((v) => v.name === variant)?.bytes;
  if (!bytes) return null;
  const text = bytes.toString("utf8");
  return {
    path: ctx.artefact.path,
    description: ctx.artefact.description,
    text,
    canary: extractCanary(text) ?? ctx.task.artefact.canary ?? null,
  };
}

/** A skill name from the artefact's file name: lower-case letters, digits and dashes. */
export function skillName(artefactPath: string): string {
  const base = path.posix.basename(artefactPath).replace(/\.[^.]*$/, "");
  const slug = base
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return slug || "reference";
}

/** SKILL.md: front matter with the name and one-line description, then the artefact verbatim. */
export function skillFile(artefact: PlacedArtefact, name = skillName(artefact.path)): string {
  const description = artefact.description.replace(/\s+/g, " ").trim().slice(0, 1024);
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n${artefact.text}`;
}

/** Did the agent open the placed artefact (at its path or in its skill folder)? null under -A. */
export function openedFrom(
  events: readonly TrajectoryEvent[],
  artefact: PlacedArtefact | null,
  skillDirs: string[] = [],
): boolean | null {
  if (!artefact) return null;
  return artefactOpened(events, {
    paths: [artefact.path, ...skillDirs],
    skills: skillDirs.length ? [skillName(artefact.path)] : [],
    text: artefact.text,
    canary: artefact.canary,
  });
}
