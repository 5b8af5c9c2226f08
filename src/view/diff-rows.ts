// The verifier's expected-vs-actual diff as rows the viewer can show side by side: the unified diff
// kgate's verifier writes (--- expected/<path>, +++ actual/<path>, hunks of - and + lines) becomes
// one row per line pair, the i-th expected line of a run of changes beside the i-th actual one, so
// that 20 differing rows read as 20 pairs, not 20 lines then 20 lines. Any other text: null (the
// viewer shows it as it is).
import type { DiffRow } from "./schema.ts";

export function diffRows(diff: string): DiffRow[] | null {
  const lines = diff.replace(/\n$/, "").split("\n");
  if (!lines.some((l) => l.startsWith("--- "))) return null;
  const rows: DiffRow[] = [];
  let minus: string[] = [];
  let plus: string[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(minus.length, plus.length); i++) {
      rows.push({ kind: "pair", expected: minus[i] ?? null, actual: plus[i] ?? null });
    }
    minus = [];
    plus = [];
  };
  for (const line of lines) {
    if (line.startsWith("--- ")) {
      flush();
      rows.push({
        kind: "file",
        text: line
          .slice(4)
          .replace(/^expected\//, "")
          .replace(/\t.*$/, ""),
      });
    } else if (line.startsWith("+++ ") || /^={10,}$/.test(line) || line.startsWith("\\ ")) {
      // The actual side's header, the separator, "\ No newline at end of file": nothing to show.
    } else if (line.startsWith("@@")) {
      flush();
      rows.push({ kind: "hunk", text: line });
    } else if (line.startsWith("-")) {
      if (plus.length > 0) flush();
      minus.push(line.slice(1));
    } else if (line.startsWith("+")) plus.push(line.slice(1));
    else if (line.startsWith(" ")) {
      flush();
      rows.push({ kind: "same", text: line.slice(1) });
    } else {
      flush();
      if (line.trim()) rows.push({ kind: "note", text: line });
    }
  }
  flush();
  return rows;
}
