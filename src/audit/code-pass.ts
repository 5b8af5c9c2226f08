// The leaked-code pass: the artefact's code blocks and formula lines against every code file and
// script of the environment, compared as winnowed fingerprints of canonical tokens (identifiers,
// literals and layout normalised away), so an operator implemented from the artefact is found
// under other names, in another language or laid out anew. A finding names both places and the
// share of the block's fingerprints the file holds.
import path from "node:path";
import type { CodeBlock, CodeSource } from "./artefact-code.ts";
import { type CodeLanguage, codeTokens } from "./code-tokens.ts";
import type { Location } from "./document.ts";
import { type Finding, fingerprint } from "./findings.ts";
import { GRAM, gramHashes } from "./winnow.ts";

/** A block's share of fingerprints found in one file from which it is an error, and a warning. */
export const CODE_ERROR_SHARE = 0.35;
export const CODE_WARNING_SHARE = 0.2;
/** Fewer shared fingerprints than this are never a finding (a few k-grams occur in any code). */
export const CODE_MIN_SHARED = 5;

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
