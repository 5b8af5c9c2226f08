// The built-in harness's tools, executed inside the sandbox: bash (timeout, output cap), read_file
// (as the sandbox user), write_file, and finish. A tool's failure is a result the model sees; a dead sandbox is thrown.
import { posix } from "node:path";
import { type Sandbox, SandboxFileError } from "../sandbox/index.ts";
import type { ToolCallPart, ToolSpec } from "./providers/types.ts";

export const FINISH_TOOL = "finish";

export const TOOL_SPECS: ToolSpec[] = [
  {
    name: "bash",
    description:
      "Run a bash command in the working directory of the sandbox (no network). Returns the exit code, " +
      "stdout and stderr (each truncated when long).",
    parameters: {
      type: "object",
      properties: {
        command: { type: "string", description: "the command line, run with bash -c" },
        timeout_sec: { type: "integer", description: "optional wall-clock limit in seconds" },
      },
      required: ["command"],
    },
  },
  {
    name: "read_file",
    description: "Read a text file (path relative to the working directory). Long files are truncated.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string" },
        start_line: { type: "integer", description: "1-based first line to return (default 1)" },
        max_lines: { type: "integer", description: "number of lines to return (default: all that fit)" },
      },
      required: ["path"],
    },
  },
  {
    name: "write_file",
    description: "Write a text file (path relative to the working directory), creating parent folders.",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"],
    },
  },
  {
    name: FINISH_TOOL,
    description: "Call when the task is complete and every requested output is written.",
    parameters: {
      type: "object",
      properties: { summary: { type: "string", description: "one or two sentences on what you did" } },
    },
  },
];

export interface ToolLimits {
  bashTimeoutSec: number;
  outputCapBytes: number;
  /** Seconds left in the agent phase: no tool call may outlive it. */
  remainingSec: () => number;
  /** Aborted on the agent timeout: a running command is abandoned. */
  signal?: AbortSignal;
}

export interface ToolOutcome {
  output: string;
  isError: boolean;
  /** Facts for the trajectory (exit code, truncation, timeout). */
  details: Record<string, unknown>;
  finished?: boolean;
}

/** Keeps the first `maxBytes` bytes of UTF-8 text, cut at a character boundary. */
export function capText(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let cut = maxBytes;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return { text: bytes.subarray(0, cut).toString("utf8"), truncated: true };
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const int = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;

async function bash(
  sandbox: Sandbox,
  input: Record<string, unknown>,
  limits: ToolLimits,
): Promise<ToolOutcome> {
  const command = str(input.command);
  if (!command) return { output: "error: `command` (string) is required", isError: true, details: {} };
  const timeoutSec = Math.max(
    1,
    Math.min(int(input.timeout_sec) ?? limits.bashTimeoutSec, limits.bashTimeoutSec, limits.remainingSec()),
  );
  const r = await sandbox.exec(["bash", "-c", command], {
    timeoutSec,
    maxOutputBytes: limits.outputCapBytes,
    signal: limits.signal,
  });
  const mark = (truncated: boolean) =>
    truncated ? `\n[... truncated at ${limits.outputCapBytes} bytes]` : "";
  const lines = [
    r.timedOut ? `timed out after ${timeoutSec}s (exit code ${r.exitCode})` : `exit code ${r.exitCode}`,
  ];
  if (r.stdout) lines.push(`stdout:\n${r.stdout}${mark(r.stdoutTruncated)}`);
  if (r.stderr) lines.push(`stderr:\n${r.stderr}${mark(r.stderrTruncated)}`);
  return {
    output: lines.join("\n"),
    isError: r.exitCode !== 0 || r.timedOut,
    details: {
      exitCode: r.exitCode,
      timedOut: r.timedOut,
      durationMs: r.durationMs,
      truncated: r.stdoutTruncated || r.stderrTruncated,
    },
  };
}

const READ_LIMIT = 4 * 1024 * 1024;
/**
 * Reads one file as the sandbox user with the permissions a shell has (never through Docker's
 * archive API, which reads as root): a missing path, a folder or an unreadable file is an exit code.
 */
const READ_SCRIPT =
  'if [ ! -e "$1" ]; then echo "$1 does not exist" >&2; exit 3; fi; ' +
  'if [ ! -f "$1" ]; then echo "$1 is not a regular file" >&2; exit 4; fi; ' +
  `exec head -c ${READ_LIMIT + 1} -- "$1"`;
const READ_TIMEOUT_SEC = 30;

function escapesWorkdir(workdir: string, p: string): boolean {
  if (p.startsWith("/")) return false;
  const abs = posix.join(workdir, p);
  return abs !== workdir && !abs.startsWith(`${workdir}/`);
}

async function readFile(
  sandbox: Sandbox,
  input: Record<string, unknown>,
  limits: ToolLimits,
): Promise<ToolOutcome> {
  const path = str(input.path);
  if (!path) return { output: "error: `path` (string) is required", isError: true, details: {} };
  if (escapesWorkdir(sandbox.workdir, path)) {
    return {
      output: `error: ${path} leaves the work directory ${sandbox.workdir}`,
      isError: true,
      details: { reason: "outside-workdir" },
    };
  }
  const r = await sandbox.exec(["bash", "-c", READ_SCRIPT, "read_file", path], {
    timeoutSec: Math.max(1, Math.min(READ_TIMEOUT_SEC, limits.remainingSec())),
    maxOutputBytes: READ_LIMIT,
    signal: limits.signal,
  });
  if (r.exitCode !== 0 || r.timedOut) {
    const why = r.timedOut ? `reading ${path} timed out` : capText(r.stderr.trim(), 2000).text;
    return { output: `error: ${why}`, isError: true, details: { path, exitCode: r.exitCode } };
  }
  if (r.stdoutTruncated) {
    return {
      output: `error: ${path} is over the read_file limit of ${READ_LIMIT} bytes; read parts of it with bash (head, sed -n)`,
      isError: true,
      details: { path, reason: "too-large" },
    };
  }
  const text = r.stdout;
  const all = text.split("\n");
  const start = int(input.start_line) ?? 1;
  const window = all.slice(start - 1, start - 1 + (int(input.max_lines) ?? all.length));
  const capped = capText(window.join("\n"), limits.outputCapBytes);
  const shown = capped.text.split("\n").length;
  const more = capped.truncated
    ? `\n[... truncated: ${all.length} lines in all; read on with start_line=${start + shown - 1}]`
    : "";
  return {
    output: capped.text + more,
    isError: false,
    details: { path, lines: all.length, truncated: capped.truncated },
  };
}

async function writeFile(sandbox: Sandbox, input: Record<string, unknown>): Promise<ToolOutcome> {
  const path = str(input.path);
  const content = str(input.content);
  if (!path || content === undefined) {
    return { output: "error: `path` and `content` (strings) are required", isError: true, details: {} };
  }
  await sandbox.writeFile(path, content);
  const bytes = Buffer.byteLength(content);
  return { output: `wrote ${bytes} bytes to ${path}`, isError: false, details: { path, bytes } };
}

/** Runs one tool call. SandboxFileError becomes an error result; SandboxUnavailableError is thrown. */
export async function runTool(
  sandbox: Sandbox,
  call: ToolCallPart,
  limits: ToolLimits,
): Promise<ToolOutcome> {
  if (call.inputError) return { output: `error: ${call.inputError}`, isError: true, details: {} };
  try {
    switch (call.name) {
      case "bash":
        return await bash(sandbox, call.input, limits);
      case "read_file":
        return await readFile(sandbox, call.input, limits);
      case "write_file":
        return await writeFile(sandbox, call.input);
      case FINISH_TOOL:
        return {
          output: "finished",
          isError: false,
          details: { summary: str(call.input.summary) },
          finished: true,
        };
      default:
        return {
          output: `error: unknown tool "${call.name}" (available: ${TOOL_SPECS.map((t) => t.name).join(", ")})`,
          isError: true,
          details: {},
        };
    }
  } catch (err) {
    if (err instanceof SandboxFileError) {
      return { output: `error: ${err.message}`, isError: true, details: { reason: err.reason } };
    }
    throw err;
  }
}
