// The leaked-code pass: the artefact's code blocks and formula lines against every code file and
// script of the environment, compared as winnowed fingerprints of canonical tokens (identifiers,
// literals and layout normalised away), so an operator implemented from the artefact is found
// under other names, in another language or laid out anew. A finding names both places and the
// share of the block's fingerprints the file holds.
import path from "node:path";
import { type CodeLanguage, codeTokens } from "./code-tokens.ts";
import type { Location } from "./document.ts";
import { type Finding, fingerprint } from "./findings.ts";
import { GRAM, gramHashes, winnow } from "./winnow.ts";

/** A block's share of fingerprints found in one file from which it is an error, and a warning. */
export const CODE_ERROR_SHARE = 0.35;
export const CODE_WARNING_SHARE = 0.2;
/** Fewer shared fingerprints than this are never a finding (a few k-grams occur in any code). */
export const CODE_MIN_SHARED = 5;

export interface CodeBlock {
  /** `code block` or `formula lines`. */
  kind: string;
  startLine: number;
  endLine: number;
  /** Its winnowed fingerprints (distinct hashes). */
  hashes: Set<number>;
}

const LANGUAGES: Record<string, CodeLanguage> = {
  ".py": "python",
  ".pyw": "python",
  ".r": "python",
  ".rb": "python",
  ".pl": "python",
  ".jl": "python",
  ".js": "c",
  ".mjs": "c",
  ".cjs": "c",
  ".ts": "c",
  ".mts": "c",
  ".cts": "c",
  ".jsx": "c",
  ".tsx": "c",
  ".java": "c",
  ".c": "c",
  ".h": "c",
  ".cc": "c",
  ".cpp": "c",
  ".cs": "c",
  ".go": "c",
  ".rs": "c",
  ".kt": "c",
  ".scala": "c",
  ".swift": "c",
  ".php": "c",
  ".sh": "shell",
  ".bash": "shell",
  ".zsh": "shell",
  ".ksh": "shell",
  ".awk": "shell",
  ".sql": "pseudo",
  ".m": "pseudo",
  ".lua": "pseudo",
};

/** The language of an environment file, when it is code: by extension, or a script's #! line. */
export function codeLanguage(name: string, text: string): CodeLanguage | undefined {
  const known = LANGUAGES[path.extname(name).toLowerCase()];
  if (known) return known;
  if (!text.startsWith("#!")) return undefined;
  const shebang = text.slice(0, text.indexOf("\n") >>> 0);
  if (/python/.test(shebang)) return "python";
  if (/node|deno|bun/.test(shebang)) return "c";
  return "shell";
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

/** How much of each block one file's code holds: shared fingerprints and the lines they are on. */
function sharedWith(blocks: readonly CodeBlock[], ids: readonly number[], lines: readonly number[]) {
  const owners = new Map<number, number[]>();
  blocks.forEach((b, i) => {
    for (const h of b.hashes) owners.set(h, [...(owners.get(h) ?? []), i]);
  });
  const shared = blocks.map(() => ({ hashes: new Set<number>(), first: Infinity, last: 0 }));
  const hashes = gramHashes(ids);
  for (let at = 0; at < hashes.length; at++) {
    const found = owners.get(hashes[at]!);
    if (found === undefined) continue;
    for (const i of found) {
      const s = shared[i]!;
      s.hashes.add(hashes[at]!);
      s.first = Math.min(s.first, lines[at]!);
      s.last = Math.max(s.last, lines[at + GRAM - 1]!);
    }
  }
  return shared;
}

export interface CodeSource {
  /** The artefact's project-relative path, for the finding's second location. */
  artefactFile: string;
  blocks: readonly CodeBlock[];
}

/** Findings for one environment file (`file` project-relative, `name` inside environment/). */
export function codeFindings(
  task: string,
  source: CodeSource,
  file: string,
  name: string,
  text: string,
): Finding[] {
  if (source.blocks.length === 0) return [];
  const language = codeLanguage(name, text);
  if (!language) return [];
  const { ids, lines } = codeTokens(text, language);
  const findings: Finding[] = [];
  sharedWith(source.blocks, ids, lines).forEach((s, i) => {
    const b = source.blocks[i]!;
    const share = s.hashes.size / b.hashes.size;
    if (s.hashes.size < CODE_MIN_SHARED || share < CODE_WARNING_SHARE) return;
    const severity = share >= CODE_ERROR_SHARE ? "error" : "warning";
    const where = `${source.artefactFile}:${b.startLine}-${b.endLine}`;
    const related: Location = { line: b.startLine, column: 1, endLine: b.endLine, endColumn: 1 };
    findings.push({
      rule: "artefact-code",
      severity,
      task: task,
      file,
      location: { line: s.first, column: 1, endLine: s.last, endColumn: 1 },
      via: [],
      message: `code matching the artefact's ${b.kind} at ${where}: ${s.hashes.size} of its ${b.hashes.size} fingerprints (${Math.round(share * 100)}% similar after names, literals and layout are normalised)${severity === "warning" ? `; an error from ${CODE_ERROR_SHARE * 100}%` : ""}`,
      related: { file: source.artefactFile, location: related },
      similarity: Number(share.toFixed(3)),
      fingerprint: fingerprint(["artefact-code", task, file, `${b.kind}:${[...b.hashes].sort().join(",")}`]),
    });
  });
  return findings;
}
