// Test support: a scripted model policy for the loopback model server. Like an agent that follows
// what it reads: under +A or a variant it opens the listed reference; then, per cell, it writes the
// right answer with a known probability (seeded) and otherwise the answer under what it read (the
// perturbed conventions) or assumed (the default ones); then it calls finish. Cells are told apart
// by task (a tag in the instruction), model name, and what the reference turned out to be.
import { spawn } from "node:child_process";
import { draw } from "./calibrate-fixtures.ts";
import { KGATE_BIN } from "./cli.ts";
import type { Script, ScriptStep, SeenRequest } from "./model-server.ts";

export type Kind = "+A" | "-A" | "perturbed";

/** Pass probability per task, model and kind of reference. */
export type Odds = Record<string, Record<string, Partial<Record<Kind, number>>>>;

export interface PolicyOptions {
  odds: Odds;
  seed: number;
  /** Where the reference is placed (task.json artefact.path). */
  artefactPath: string;
  /** Text only the perturbed variant contains. */
  perturbedMarker: string;
  output: { path: string; correct: string; default: string; perturbed: string };
}

interface Turn {
  system: string;
  instruction: string;
  calls: string[];
  lastResult: string;
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((b: { type?: string; text?: string; content?: unknown }) =>
        b.type === "text" ? (b.text ?? "") : b.type === "tool_result" ? text(b.content) : "",
      )
      .join("\n");
  }
  return "";
}

/** The conversation so far, from an Anthropic Messages or OpenAI Chat Completions request. */
function turnOf(request: SeenRequest): Turn {
  const body = request.body as { system?: unknown; messages: Array<Record<string, unknown>> };
  const calls: string[] = [];
  let system = text(body.system);
  let instruction = "";
  let lastResult = "";
  for (const m of body.messages) {
    if (m.role === "system") system += text(m.content);
    else if (m.role === "user" && !instruction) instruction = text(m.content);
    else if (m.role === "assistant") {
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if ((b as { type?: string }).type === "tool_use") calls.push((b as { name: string }).name);
      }
      for (const c of (m.tool_calls as Array<{ function: { name: string } }> | undefined) ?? []) {
        calls.push(c.function.name);
      }
    }
    if (m.role === "tool" || (m.role === "user" && Array.isArray(m.content))) lastResult = text(m.content);
  }
  return { system, instruction, calls, lastResult };
}

export interface Policy {
  script: Script;
  /** Conversations that reached a decision, per `task|model|kind`. */
  decided: Map<string, number>;
}

/** Passes a cell will see in its first `n` decisions: what the test expects. */
export function expectedPasses(o: PolicyOptions, task: string, model: string, kind: Kind, n: number): number {
  const p = o.odds[task]?.[model]?.[kind] ?? 0;
  let passes = 0;
  for (let k = 0; k < n; k++) if (draw(o.seed, `${task}|${model}|${kind}#${k}`) < p) passes += 1;
  return passes;
}

export function scriptedPolicy(o: PolicyOptions): Policy {
  const decided = new Map<string, number>();
  const usage = { input: 1200, output: 150 };
  const write = (task: string, model: string, kind: Kind): ScriptStep => {
    const key = `${task}|${model}|${kind}`;
    const k = decided.get(key) ?? 0;
    decided.set(key, k + 1);
    const pass = draw(o.seed, `${key}#${k}`) < (o.odds[task]?.[model]?.[kind] ?? 0);
    const content = pass ? o.output.correct : kind === "perturbed" ? o.output.perturbed : o.output.default;
    return {
      text: `writing the result (${key} #${k}: ${pass ? "right" : "wrong"} answer)`,
      toolCalls: [{ name: "write_file", input: { path: o.output.path, content } }],
      usage,
    };
  };
  const script: Script = (request) => {
    const turn = turnOf(request);
    const model = String(request.body.model);
    const task = /\(batch: ([a-z0-9-]+)\)/.exec(turn.instruction)?.[1] ?? "unknown";
    const last = turn.calls.at(-1);
    if (last === undefined) {
      if (turn.system.includes(o.artefactPath)) {
        return {
          text: "reading the reference",
          toolCalls: [{ name: "read_file", input: { path: o.artefactPath } }],
          usage,
        };
      }
      return write(task, model, "-A");
    }
    if (last === "read_file")
      return write(task, model, turn.lastResult.includes(o.perturbedMarker) ? "perturbed" : "+A");
    return { text: "done", toolCalls: [{ name: "finish", input: { summary: "wrote the result" } }], usage };
  };
  return { script, decided };
}

export interface AsyncCliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real bin in a child process without blocking this one (the model server answers meanwhile). */
export function kgateAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<AsyncCliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KGATE_BIN, ...args], {
      env: { ...process.env, NO_COLOR: "1", CI: "true", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
