// The export canary: a GUID marking every file kgate writes for a task that leaves it (rows, Harbor
// folders, the manifest, the reward module), so that exported data found in a corpus is traced back.
// It is not the artefact's canary (that one marks the artefact itself and must stay out of -A files)
// and it is derived from the task's digest, so an export is reproducible and a changed task has a
// new one. Never in a prompt: a model trained on the rows must not learn it.
import { createHash } from "node:crypto";
import type { LoadedTask } from "../task/index.ts";
import type { ExportFile } from "./layout.ts";

/** A GUID (RFC 9562 layout, version 8) from the task's id and digest. */
export function exportCanary(task: Pick<LoadedTask, "id" | "digests">): string {
  const hex = createHash("sha256")
    .update(`kgate export canary\u0000${task.id}\u0000${task.digests.task}`)
    .digest("hex");
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** One line naming the canary, for files that take a comment. */
export function canaryLine(canary: string): string {
  return `kgate export canary ${canary}: knowledge-gated task data; publishing it defeats the gate`;
}

/** What every export says once: the artefact (and the answers and verifiers) must stay private. */
export const PUBLICATION_WARNING =
  "these files hold the artefacts' conventions (in +A and variant prompts, reference answers and verifier code): " +
  "publishing them defeats the gate, since a model that has read them passes the -A twin by memory; keep them private";

/** Files kgate writes into an exported folder (the others are the task's own bytes), with their comment syntax. */
const GENERATED: Array<[RegExp, (line: string) => string]> = [
  [/(^|\/)(solve|test)\.sh$/, (l) => `# ${l}\n`],
  [/(^|\/)Dockerfile$/, (l) => `# ${l}\n`],
  [/^(tests|verifier)\/verif(y|ier)\.mjs$/, (l) => `// ${l}\n`],
];

/**
 * The files of an exported folder with the canary line in each script, Dockerfile and verifier kgate
 * wrote (a script keeps its #! line first); task.toml's header and tests/manifest.json carry it where
 * they are written, and the task's own bytes (instruction, data, task.json, solution files) are left.
 */
export function stampCanary(files: ExportFile[], canary: string): ExportFile[] {
  return files.map((file) => {
    const rule = GENERATED.find(([pattern]) => pattern.test(file.path));
    if (!rule) return file;
    const text = file.bytes.toString();
    const comment = rule[1](canaryLine(canary));
    const bytes = text.startsWith("#!") ? text.replace("\n", `\n${comment}`) : `${comment}${text}`;
    return { ...file, bytes };
  });
}
