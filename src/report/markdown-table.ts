// The one writer of kgate's Markdown tables: every header and body cell escaped, so that a `|`, a line
// break or a tag in a cell's text can never add a column, end a row or vanish as HTML.

/**
 * A cell's text as GitHub-flavoured Markdown shows it: backslashes and pipes escaped (`\|` is the
 * table's own escape), a `<` that could open a tag, comment or autolink (before a letter, `/`, `!`
 * or `?`) escaped so no text is read as HTML, line breaks as spaces. "p < 0.45" stays as it is.
 */
export function markdownCell(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/<(?=[A-Za-z/!?])/g, "\\<")
    .replace(/\r\n|\r|\n/g, " ");
}

/** One row: `| a | b |`, every cell escaped. */
export function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map(markdownCell).join(" | ")} |`;
}

/** A whole table: the head, its delimiter row, then one line per row (no trailing newline). */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [markdownRow(head), `|${head.map(() => "---").join("|")}|`, ...rows.map(markdownRow)].join("\n");
}
