// Renders a solver's answers as the files an agent would write: kgate check verifies them like a trial's.
import type { LoadedTask, OutputSpec } from "../task/index.ts";
import type { OutputForVerification } from "./contract.ts";
import { csvField } from "./csv.ts";
import type { LoadedVerifier } from "./load.ts";

function cellText(value: unknown): string {
  if (typeof value === "string") return csvField(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return csvField(JSON.stringify(value) ?? "");
}

/** CSV with the declared columns in declared order, LF line ends; JSON pretty-printed; text as rendered. */
export function renderOutput(output: OutputSpec, answer: unknown, loaded: LoadedVerifier): string {
  if (output.format === "json") return `${JSON.stringify(answer, null, 2)}\n`;
  if (output.format === "text") {
    const render = loaded.rubricOf(output.path)?.render;
    return render ? render(answer) : String(answer);
  }
  const names = output.columns.map((c) => c.name);
  const rows = Array.isArray(answer) ? (answer as Record<string, unknown>[]) : [];
  const lines = [names.map(csvField).join(",")];
  for (const row of rows) lines.push(names.map((n) => cellText(row?.[n])).join(","));
  return `${lines.join("\n")}\n`;
}

/** Every declared output of `answers`, as collected outputs ready for verifyTrial. */
export function renderAnswers(
  task: LoadedTask,
  loaded: LoadedVerifier,
  answers: Record<string, unknown>,
): OutputForVerification[] {
  return task.spec.outputs.map((output) => ({
    path: output.path,
    status: "collected",
    bytes: Buffer.from(renderOutput(output, answers[output.path], loaded), "utf8"),
  }));
}
