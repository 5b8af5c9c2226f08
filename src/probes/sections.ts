// Convention sections of an artefact: a line `<!-- kgate:convention NAME -->` opens one, a line
// `<!-- /kgate:convention -->` closes it, NAME being a convention the verifier declares. Found with
// line-precise errors, and cut one at a time (the lines from the opening to the closing marker).

const OPEN = /^\s*<!--\s*kgate:convention\s+(\S+)\s*-->\s*$/;
const CLOSE = /^\s*<!--\s*\/kgate:convention\s*-->\s*$/;

export interface ConventionSection {
  name: string;
  /** 1-based lines of the opening and closing markers. */
  openLine: number;
  closeLine: number;
}

export class SectionError extends Error {
  override name = "SectionError";
}

/** The sections of an artefact; `file` names it in errors, `declared` are the verifier's convention names. */
export function conventionSections(
  text: string,
  file: string,
  declared: readonly string[],
): ConventionSection[] {
  const lines = text.split("\n");
  const sections: ConventionSection[] = [];
  let open: { name: string; line: number } | null = null;
  lines.forEach((line, i) => {
    const n = i + 1;
    const opening = OPEN.exec(line);
    if (opening) {
      const name = opening[1]!;
      if (open)
        throw new SectionError(
          `${file}:${n}: section "${name}" opens inside section "${open.name}" (line ${open.line})`,
        );
      if (!declared.includes(name)) {
        throw new SectionError(
          `${file}:${n}: "${name}" is not a convention the verifier declares (declared: ${declared.join(", ") || "none"})`,
        );
      }
      if (sections.some((s) => s.name === name))
        throw new SectionError(`${file}:${n}: section "${name}" is marked twice`);
      open = { name, line: n };
    } else if (CLOSE.test(line)) {
      if (!open) throw new SectionError(`${file}:${n}: a closing marker without an open section`);
      sections.push({ name: open.name, openLine: open.line, closeLine: n });
      open = null;
    }
  });
  if (open) {
    const { name, line } = open;
    throw new SectionError(`${file}:${line}: section "${name}" is never closed`);
  }
  return sections;
}

/** The artefact without one section (its markers included). */
export function cutSection(text: string, section: ConventionSection): string {
  const lines = text.split("\n");
  return [...lines.slice(0, section.openLine - 1), ...lines.slice(section.closeLine)].join("\n");
}
