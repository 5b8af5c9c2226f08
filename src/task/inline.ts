// The inline form of a task: the whole task as one conversation without tools or sandbox (the
// instruction byte-identical, the condition's files inline in fenced blocks), and the parse of a
// reply's fenced blocks, labelled with output paths, back into output files.
import { fileSetDigest, sha256 } from "./digest.ts";
import { type ConditionFileSet, conditionFileSet } from "./fileset.ts";
import type { LoadedTask } from "./load.ts";
import type { Condition } from "./schema.ts";

/** Total bytes of environment files the inline form carries by default (beyond it: refused). */
export const DEFAULT_INLINE_ENVIRONMENT_BYTES = 256 * 1024;
/** Characters of a reply that are parsed; the rest is ignored (a reply is attacker-controlled). */
export const INLINE_REPLY_CAP = 4 * 1024 * 1024;

export const INLINE_SYSTEM_PROMPT = [
  "You work without tools, files or network: everything you need is in this conversation.",
  "The files of the working directory are shown in fenced blocks labelled with their paths.",
  "Nobody will answer questions: decide for yourself, then answer as asked.",
].join("\n");

export class InlineFormError extends Error {
  override name = "InlineFormError";
}

export interface InlineOptions {
  /** Most bytes of environment files to inline (default DEFAULT_INLINE_ENVIRONMENT_BYTES). */
  maxEnvironmentBytes?: number;
  /** Under +A: these bytes in place of the artefact (a probe's cut of it). */
  artefact?: Buffer;
}

export interface InlineFile {
  path: string;
  text: string;
  /** True for the artefact (or variant) placed by the condition. */
  artefact: boolean;
}

export interface InlinePrompt {
  system: string;
  /** The instruction, byte-identical to instruction.md. */
  instruction: string;
  files: InlineFile[];
  /** The files section: every file in a fenced block labelled with its path. */
  filesText: string;
  /** How to answer: one fenced block per declared output, labelled with its path. */
  answerText: string;
  /** The one user message of the single-turn form: instruction, files, answer format. */
  text: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A fence of backticks longer than any backtick run in `text` (CommonMark), at least three. */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

function block(label: string, text: string): string {
  const fence = fenceFor(text);
  return `${fence}${label}\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}${fence}\n`;
}

/** The condition's file set, with the artefact's bytes replaced under +A when an override is given. */
export function inlineFileSet(task: LoadedTask, condition: Condition, artefact?: Buffer): ConditionFileSet {
  const set = conditionFileSet(task, condition);
  if (!artefact || condition !== "+A") return set;
  const digest = sha256(artefact);
  const files = set.files.map((f) =>
    f.path === task.spec.artefact.path ? { path: f.path, sha256: digest, read: () => artefact } : f,
  );
  return { condition, files, digest: fileSetDigest(files), artefactDigest: digest };
}

/** The condition's files as text; environment over the byte limit, or not UTF-8, is refused. */
function inlineFiles(task: LoadedTask, condition: Condition, options: InlineOptions): InlineFile[] {
  const maxBytes = options.maxEnvironmentBytes ?? DEFAULT_INLINE_ENVIRONMENT_BYTES;
  const set = inlineFileSet(task, condition, options.artefact);
  const artefactPath = task.spec.artefact.path;
  const environmentBytes = task.environment.reduce((sum, f) => sum + f.size, 0);
  if (environmentBytes > maxBytes) {
    const largest = [...task.environment].sort((a, b) => b.size - a.size)[0]!;
    throw new InlineFormError(
      `task "${task.id}": environment/ holds ${environmentBytes} bytes, more than the inline form's limit of ${maxBytes} (largest: environment/${largest.path}, ${largest.size} bytes); raise the limit or use the sandboxed form`,
    );
  }
  return set.files.map((f) => {
    const isArtefact = f.path === artefactPath;
    let text: string;
    try {
      text = utf8.decode(f.read());
    } catch {
      const where = isArtefact ? `the artefact (${f.path})` : `environment/${f.path}`;
      throw new InlineFormError(
        `task "${task.id}": ${where} is not UTF-8 text; the inline form carries text files only`,
      );
    }
    return { path: f.path, text, artefact: isArtefact };
  });
}

/** The answer format: one fenced block per declared output, labelled with its path. */
export function answerFormat(task: LoadedTask): string {
  const lines = [
    "Answer with the complete content of each output file in its own fenced block whose opening fence is labelled with the file's path, like this:",
    "",
  ];
  for (const output of task.spec.outputs)
    lines.push(`\`\`\`${output.path}`, `<content of ${output.path}>`, "```");
  return `${lines.join("\n")}\n`;
}

/** The inline form of a task under a condition; throws InlineFormError when it cannot be inlined. */
export function renderInline(
  task: LoadedTask,
  condition: Condition,
  options: InlineOptions = {},
): InlinePrompt {
  const files = inlineFiles(task, condition, options);
  const instruction = task.instruction.toString("utf8");
  const filesText = `The working directory holds these files:\n\n${files.map((f) => block(f.path, f.text)).join("\n")}`;
  const answerText = answerFormat(task);
  return {
    system: INLINE_SYSTEM_PROMPT,
    instruction,
    files,
    filesText,
    answerText,
    text: `${instruction}\n\n---\n\n${filesText}\n---\n\n${answerText}`,
  };
}

/** One output file recovered from a reply: its bytes, or why it is missing or rejected. */
export interface InlineOutput {
  path: string;
  status: "collected" | "missing" | "rejected";
  bytes?: Buffer;
  reason?: string;
}

interface FencedBlock {
  label: string;
  body: string;
  closed: boolean;
  line: number;
}

const OPENING = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;

/** The fenced blocks of a Markdown text (CommonMark fences), with their info-string label. */
export function fencedBlocks(text: string): FencedBlock[] {
  const lines = text.split(/\r?\n/);
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*$`);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !closing.test(lines[j]!)) body.push(lines[j++]!);
    const closed = j < lines.length;
    blocks.push({ label: open[2]!, body: body.length ? `${body.join("\n")}\n` : "", closed, line: i + 1 });
    i = j;
  }
  return blocks;
}

/**
 * The declared outputs found in a reply. A block labelled with an output path that is never closed,
 * given twice, or over the output's maxBytes is `rejected` (the verifier calls it a format failure);
 * no block for an output is `missing`. With `labelPrefix` (an exam's `task-k/`), a block is labelled
 * with the prefix before the output path; the outputs keep their own paths.
 */
export function parseInlineReply(task: LoadedTask, reply: string, labelPrefix = ""): InlineOutput[] {
  const blocks = fencedBlocks(reply.slice(0, INLINE_REPLY_CAP));
  return task.spec.outputs.map((output): InlineOutput => {
    const label = `${labelPrefix}${output.path}`;
    const labelled = blocks.filter((b) => b.label === label || b.label === `./${label}`);
    if (labelled.length === 0) {
      return {
        path: output.path,
        status: "missing",
        reason: `the reply has no fenced block labelled ${label}`,
      };
    }
    if (labelled.length > 1) {
      const lines = labelled.map((b) => b.line).join(", ");
      return {
        path: output.path,
        status: "rejected",
        reason: `the reply has ${labelled.length} blocks labelled ${label} (lines ${lines})`,
      };
    }
    const found = labelled[0]!;
    if (!found.closed) {
      return {
        path: output.path,
        status: "rejected",
        reason: `the block labelled ${label} (line ${found.line}) is never closed`,
      };
    }
    const bytes = Buffer.from(found.body, "utf8");
    if (bytes.length > output.maxBytes) {
      return {
        path: output.path,
        status: "rejected",
        reason: `the block labelled ${label} holds ${bytes.length} bytes, over its maxBytes of ${output.maxBytes}`,
      };
    }
    return { path: output.path, status: "collected", bytes };
  });
}
