// Test support for the probes: a scaffolded task "demo" (input.csv: widget 3, gadget 5; the
// artefact's markup 12%, the default 0%, the perturbed 15%) and configurations on the loopback model
// server, each answering by a scripted persona: what it recites, what it answers.
import { scaffoldTask } from "../../src/task/index.ts";
import type { ModelServer, ScriptStep, SeenRequest } from "./model-server.ts";
import { tempProject, writeJson } from "./project.ts";

export const OUTPUT = "output/result.csv";
/** 3 * 1.12 = 3.36 and 5 * 1.12 = 5.60 (the artefact's 12%). */
export const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";
/** 0% markup: the default convention. */
export const DEFAULT = "item,value\nwidget,3.00\ngadget,5.00\n";

export interface Persona {
  /** The JSON object stated when asked for conventions, or free text. */
  states: Record<string, unknown> | string;
  /** The output file's content in the answer turn. */
  answers: string;
  /** Text of the reply to a continuation request (canary probe). */
  continues?: string;
}

export const block = (label: string, body: string) =>
  `\`\`\`${label}\n${body}${body.endsWith("\n") ? "" : "\n"}\`\`\`\n`;

function userTexts(request: SeenRequest): string[] {
  const messages = (request.body.messages ?? request.body.input ?? []) as Array<{
    role: string;
    content: unknown;
  }>;
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

/** Replies by the persona named after the request's model: a convention question, a continuation, or the task. */
export function personaScript(personas: Record<string, Persona>) {
  return (request: SeenRequest): ScriptStep => {
    const persona = personas[String(request.body.model)];
    if (!persona) return { status: 400, message: `no persona for model ${String(request.body.model)}` };
    const last = userTexts(request).at(-1) ?? "";
    if (last.includes("fenced block labelled json")) {
      const stated =
        typeof persona.states === "string" ? persona.states : block("json", JSON.stringify(persona.states));
      return { text: `Here they are.\n${stated}`, usage: { input: 500, output: 40 } };
    }
    if (last.includes("Continue this text"))
      return { text: persona.continues ?? "I do not know this text.", usage: { input: 100, output: 20 } };
    return { text: `Result:\n${block(OUTPUT, persona.answers)}`, usage: { input: 800, output: 60 } };
  };
}

/** A project with task "demo" and one builtin configuration per persona (model = persona name). */
export function probeProject(server: ModelServer, models: Record<string, "anthropic" | "openai">) {
  const paths = tempProject();
  scaffoldTask(paths, { id: "demo", gate: "convention" });
  const agents = Object.fromEntries(
    Object.entries(models).map(([model, provider]) => [
      model,
      {
        harness: "builtin",
        provider,
        model,
        baseUrl: provider === "anthropic" ? server.anthropicUrl : server.openaiUrl,
        apiKeyEnv: "KGATE_PROBE_KEY",
        retry: { maxRetries: 0 },
      },
    ]),
  );
  writeJson(paths.config, { agents });
  return { paths, agents };
}
