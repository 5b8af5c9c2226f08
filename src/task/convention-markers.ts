// Convention-section markers in an artefact: a section starts with a line
// `<!-- kgate:convention NAME -->` and ends with a line `<!-- /kgate:convention -->`, NAME being a
// convention key the task's verifier declares. The compression probes cut artefacts by them.

export interface ConventionSection {
  name: string;
  /** 1-based lines of the start and end markers. */
  startLine: number;
  endLine: number;
  /** The lines between the markers. */
  body: string;
}

export interface ConventionMarkup {
  sections: ConventionSection[];
  /** Malformed, nested, unclosed or unopened markers, each with its line. */
  problems: string[];
}

const START = /^<!--\s*kgate:convention\s+([A-Za-z_][A-Za-z0-9_.-]*)\s*-->$/;
const END = /^<!--\s*\/kgate:convention\s*-->$/;
const ANY = /kgate:convention/;

export function conventionSections(text: string): ConventionMarkup {
  const lines = text.split(/\r?\n/);
  const sections: ConventionSection[] = [];
  const problems: string[] = [];
  let open: { name: string; line: number } | undefined;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!ANY.test(line)) return;
    const start = START.exec(line);
    if (start) {
      if (open)
        problems.push(
          `line ${i + 1}: section "${start[1]}" starts inside "${open.name}" (line ${open.line})`,
        );
      open = { name: start[1]!, line: i + 1 };
    } else if (END.test(line)) {
      if (!open) problems.push(`line ${i + 1}: an end marker without a section`);
      else
        sections.push({
          name: open.name,
          startLine: open.line,
          endLine: i + 1,
          body: lines.slice(open.line, i).join("\n"),
        });
      open = undefined;
    } else {
      problems.push(
        `line ${i + 1}: not a marker (expected <!-- kgate:convention NAME --> or <!-- /kgate:convention -->)`,
      );
    }
  });
  if (open) problems.push(`line ${open.line}: section "${open.name}" is never closed`);
  return { sections, problems };
}
