// Convention-section markers in an artefact: a section starts with a line
// `<!-- kgate:convention NAME -->` and ends with a line `<!-- /kgate:convention -->`, NAME being a
// convention key the task's verifier declares. The one parser of them: `kgate check` reports every
// problem, the compression probe refuses an artefact with any, and cuts the sections it finds.

export interface ConventionSection {
  name: string;
  /** 1-based lines of the start and end markers. */
  startLine: number;
  endLine: number;
  /** The lines between the markers. */
  body: string;
}

export interface MarkerProblem {
  /** 1-based line of the marker at fault. */
  line: number;
  message: string;
}

export interface ConventionMarkup {
  sections: ConventionSection[];
  /**
   * Malformed, nested, unclosed or unopened markers in the order found; with `declared`, then each
   * section naming no declared convention or marked twice.
   */
  problems: MarkerProblem[];
}

const START = /^<!--\s*kgate:convention\s+([A-Za-z_][A-Za-z0-9_.-]*)\s*-->$/;
const END = /^<!--\s*\/kgate:convention\s*-->$/;
const ANY = /kgate:convention/;

/** `line 5: section "b" starts inside "a" (line 4)`. */
export const markerProblemText = (p: MarkerProblem): string => `line ${p.line}: ${p.message}`;

/** The sections of an artefact's text; `declared` (the verifier's convention names) adds their checks. */
export function conventionSections(text: string, declared?: readonly string[]): ConventionMarkup {
  const lines = text.split(/\r?\n/);
  const sections: ConventionSection[] = [];
  const problems: MarkerProblem[] = [];
  let open: { name: string; line: number } | undefined;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!ANY.test(line)) return;
    const start = START.exec(line);
    if (start) {
      if (open)
        problems.push({
          line: i + 1,
          message: `section "${start[1]}" starts inside "${open.name}" (line ${open.line})`,
        });
      open = { name: start[1]!, line: i + 1 };
    } else if (END.test(line)) {
      if (!open) problems.push({ line: i + 1, message: "an end marker without a section" });
      else
        sections.push({
          name: open.name,
          startLine: open.line,
          endLine: i + 1,
          body: lines.slice(open.line, i).join("\n"),
        });
      open = undefined;
    } else {
      problems.push({
        line: i + 1,
        message: "not a marker (expected <!-- kgate:convention NAME --> or <!-- /kgate:convention -->)",
      });
    }
  });
  if (open) problems.push({ line: open.line, message: `section "${open.name}" is never closed` });
  if (declared) problems.push(...declaredProblems(sections, declared));
  return { sections, problems };
}

/** Sections naming no declared convention (a misspelt name would cut nothing), and names marked twice. */
function declaredProblems(
  sections: readonly ConventionSection[],
  declared: readonly string[],
): MarkerProblem[] {
  const seen = new Set<string>();
  return sections.flatMap((s) => {
    const found: MarkerProblem[] = [];
    if (!declared.includes(s.name))
      found.push({
        line: s.startLine,
        message: `"${s.name}" is not a declared convention (declared: ${declared.join(", ") || "none"})`,
      });
    if (seen.has(s.name)) found.push({ line: s.startLine, message: `section "${s.name}" is marked twice` });
    seen.add(s.name);
    return found;
  });
}

/** The artefact without one section (its markers included). */
export function cutSection(text: string, section: ConventionSection): string {
  const lines = text.split("\n");
  return [...lines.slice(0, section.startLine - 1), ...lines.slice(section.endLine)].join("\n");
}
