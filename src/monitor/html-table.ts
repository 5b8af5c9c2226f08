// A titled table of the monitoring analyses as HTML, every text escaped: the battery's page and the
// run's section of a calibration report share it.
import { escapeXml as esc } from "../report/index.ts";

export interface Table {
  title: string;
  head: string[];
  rows: string[][];
}

/** The table under a heading of the given level (h2 on a page of its own, h3 inside a section). */
export function htmlTable(t: Table, heading: "h2" | "h3"): string {
  const cells = (tag: string, texts: readonly string[]) =>
    texts.map((c) => `<${tag}>${esc(c)}</${tag}>`).join("");
  return `<${heading}>${esc(t.title)}</${heading}>\n<table>\n<tr>${cells("th", t.head)}</tr>\n${t.rows
    .map((r) => `<tr>${cells("td", r)}</tr>`)
    .join("\n")}\n</table>`;
}
