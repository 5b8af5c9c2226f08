// A BenchFlow task.md for `kgate import`: YAML front matter (the task config: BenchFlow's `sandbox`
// table is Harbor's `environment`) and the body, whose prompt is the instruction. BenchFlow's own
// reading: with no reserved heading (`## prompt`, `## role:<name>`, `## scene:<name>`,
// `## user-persona`) the whole body is the prompt; with them, the `## prompt` section (or the text
// before the first heading); surrounding whitespace removed; `\## prompt` escapes a heading.
import { parse, YAMLParseError } from "yaml";
import { HarborTaskError, type HarborTaskToml, harborConfig } from "./harbor-toml.ts";

const RESERVED = /^##\s+(prompt|role:[A-Za-z0-9_.-]+|scene:[A-Za-z0-9_.-]+|user-persona)\s*$/gim;
const ESCAPED = /^\\(##\s+(?:prompt|role:[A-Za-z0-9_.-]+|scene:[A-Za-z0-9_.-]+|user-persona)\s*)$/gim;

export interface TaskMd {
  config: HarborTaskToml;
  /** The prompt as BenchFlow sends it, with one final line break. */
  instruction: string;
  /** Reserved sections other than the prompt (roles, scenes, a user persona): kgate has none. */
  otherSections: string[];
}

function splitFrontMatter(file: string, text: string): { front: string; body: string; line: number } {
  const lines = text.split(/(?<=\n)/);
  if (lines[0]?.trim() !== "---")
    throw new HarborTaskError(`${file}: must start with YAML front matter (---)`);
  const close = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (close < 0) throw new HarborTaskError(`${file}: the front matter has no closing ---`);
  return { front: lines.slice(1, close).join(""), body: lines.slice(close + 1).join(""), line: 2 };
}

function promptOf(body: string): { prompt: string; others: string[] } {
  const headings = [...body.matchAll(RESERVED)];
  if (headings.length === 0) return { prompt: body.trim(), others: [] };
  const sections = new Map<string, string>();
  headings.forEach((h, i) => {
    const end = i + 1 < headings.length ? headings[i + 1]!.index : body.length;
    sections.set(h[1]!.toLowerCase(), body.slice(h.index + h[0].length, end).trim());
  });
  const prompt = sections.get("prompt") ?? body.slice(0, headings[0]!.index).trim();
  return {
    prompt: prompt.replace(ESCAPED, "$1"),
    others: [...sections.keys()].filter((k) => k !== "prompt"),
  };
}

export function readTaskMd(file: string, text: string): TaskMd {
  const { front, body, line } = splitFrontMatter(file, text);
  let data: unknown;
  try {
    data = parse(front) ?? {};
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const at = err.linePos?.[0];
      const where = at ? `line ${at.line + line - 1}, column ${at.col}: ` : "";
      throw new HarborTaskError(`${file}: ${where}invalid YAML: ${err.message.split("\n")[0]}`);
    }
    throw err;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new HarborTaskError(`${file}: the front matter must be a mapping`);
  }
  const { sandbox, environment, ...rest } = data as Record<string, unknown>;
  const config = harborConfig(file, { ...rest, environment: sandbox ?? environment });
  const { prompt, others } = promptOf(body);
  return { config, instruction: prompt ? `${prompt}\n` : "", otherSections: others };
}
