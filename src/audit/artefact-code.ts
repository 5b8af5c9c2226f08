// The artefact's code as the leaked-code pass compares it: fenced and indented code blocks and the
// formula lines of its prose, each as the winnowed fingerprints of its canonical tokens.
import { codeTokens } from "./code-tokens.ts";
import { GRAM, gramHashes, winnow } from "./winnow.ts";

export interface CodeBlock {
  /** `code block` or `formula lines`. */
  kind: string;
  startLine: number;
  endLine: number;
  /** Its winnowed fingerprints (distinct hashes). */
  hashes: Set<number>;
}

const FENCE = /^ {0,3}(```+|~~~+)/;
/** A formula: an assignment or equation with an operator or a call beside it. */
const FORMULA = /(?:^|[^=!<>])(?:=|:=|←)(?!=)/;
const OPERATOR = /[+\-*/^×÷()[\]]/;

function block(kind: string, text: string, startLine: number, endLine: number): CodeBlock | undefined {
  const tokens = codeTokens(text, "pseudo", startLine);
  if (tokens.ids.length < GRAM) return undefined;
  const hashes = new Set(winnow(gramHashes(tokens.ids)).map((f) => f.hash));
  return { kind, startLine, endLine, hashes };
}

/**
 * The artefact's code: fenced and indented code blocks, and its formula lines (outside blocks; one
 * block of them all). HTML comments (the canary, convention markers) are left out.
 */
export function artefactCode(text: string): CodeBlock[] {
  const lines = text.replace(/<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, " ")).split("\n");
  const blocks: CodeBlock[] = [];
  const formulas: string[] = [];
  let fence: { marker: string; start: number; body: string[] } | undefined;
  let indented: { start: number; body: string[] } | undefined;
  const closeIndented = (end: number) => {
    if (!indented) return;
    while (indented.body.at(-1)?.trim() === "") indented.body.pop();
    const last = indented.start + indented.body.length - 1;
    const found = block("code block", indented.body.join("\n"), indented.start, Math.min(end, last));
    if (found) blocks.push(found);
    indented = undefined;
  };
  lines.forEach((line, i) => {
    const n = i + 1;
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence.marker[0] && marker.length >= fence.marker.length) {
        const found = block("code block", fence.body.join("\n"), fence.start + 1, n - 1);
        if (found) blocks.push(found);
        fence = undefined;
      } else fence.body.push(line);
      return;
    }
    if (marker) {
      closeIndented(n - 1);
      fence = { marker, start: n, body: [] };
      return;
    }
    const isIndented = /^(?: {4}|\t)/.test(line) && line.trim() !== "";
    if (isIndented && (indented || i === 0 || lines[i - 1]!.trim() === "")) {
      indented ??= { start: n, body: [] };
      indented.body.push(line);
      return;
    }
    if (indented && line.trim() === "") {
      indented.body.push(line);
      return;
    }
    closeIndented(n - 1);
    formulas.push(FORMULA.test(line) && OPERATOR.test(line) ? line : "");
  });
  closeIndented(lines.length);
  const first = formulas.findIndex((l) => l !== "");
  if (first >= 0) {
    // The formula lines as one block, each line its own token run (k-grams do not join two lines).
    const hashes = new Set<number>();
    let last = first;
    formulas.forEach((l, i) => {
      if (!l) return;
      last = i;
      for (const f of winnow(gramHashes(codeTokens(l, "pseudo").ids))) hashes.add(f.hash);
    });
    if (hashes.size > 0)
      blocks.push({ kind: "formula lines", startLine: first + 1, endLine: last + 1, hashes });
  }
  return blocks;
}

export interface CodeSource {
  /** The artefact's project-relative path, for the finding's second location. */
  artefactFile: string;
  blocks: readonly CodeBlock[];
}
