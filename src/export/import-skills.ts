// The skills of an imported task (environment/skills/<name>/SKILL.md, as SkillsBench bundles them)
// are its knowledge, not data: they never become environment files, and their SKILL.md bodies are
// proposed as the artefact candidate (one skill: its body; several: one section each), behind a
// fresh canary, for the curator to condense. Other files of a skill folder (scripts) are kept aside.
import { parse } from "yaml";

/** The context folder that holds the skills, relative to environment/. */
export const SKILLS_FOLDER = "skills";

export interface SkillSource {
  /** Context path of its SKILL.md, relative to environment/. */
  file: string;
  text: string;
}

export interface ArtefactCandidate {
  /** Where the artefact is placed in the work directory (task.json artefact.path). */
  path: string;
  description: string;
  /** artefacts/<id>/artefact.md. */
  text: string;
  skills: string[];
}

function skillParts(source: SkillSource): { name: string; description: string; body: string } {
  const folder = source.file.split("/")[1] ?? "skill";
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(source.text);
  let meta: Record<string, unknown> = {};
  try {
    const parsed = match ? parse(match[1]!) : null;
    if (parsed && typeof parsed === "object") meta = parsed as Record<string, unknown>;
  } catch {
    // Front matter that is not YAML: the folder names the skill, the whole text is its body.
  }
  const body = (match ? source.text.slice(match[0].length) : source.text).trim();
  const name = typeof meta.name === "string" && meta.name.trim() ? meta.name.trim() : folder;
  const description = typeof meta.description === "string" ? meta.description.trim() : "";
  return { name, description, body };
}

/** Whether a context path belongs to the skills (never environment data). */
export function isSkillFile(contextPath: string): boolean {
  return contextPath === SKILLS_FOLDER || contextPath.startsWith(`${SKILLS_FOLDER}/`);
}

/** SKILL.md files directly in a skill folder: skills/<name>/SKILL.md. */
export function skillFiles(contextFiles: readonly string[]): string[] {
  return contextFiles.filter((f) => /^skills\/[^/]+\/SKILL\.md$/.test(f)).sort();
}

export function artefactCandidate(skills: readonly SkillSource[], canary: string): ArtefactCandidate | null {
  if (skills.length === 0) return null;
  const parts = skills.map(skillParts);
  const slug = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "skill";
  const one = parts.length === 1 ? parts[0]! : null;
  const body = one
    ? one.body
    : parts
        .map((p) => `## ${p.name}\n\n${p.description ? `${p.description}\n\n` : ""}${p.body}`)
        .join("\n\n");
  return {
    path: `docs/internal/${one ? slug(one.name) : "skills"}.md`,
    description: one?.description || `The task's skills: ${parts.map((p) => p.name).join(", ")}`,
    text: `<!-- kgate-canary: ${canary} -->\n${body}\n`,
    skills: parts.map((p) => p.name),
  };
}
