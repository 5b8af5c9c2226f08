// Test support: tasks built for the leak audit in a temporary project, from the corpus' artefact,
// audit file and instruction (or given texts), with chosen environment files.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../../src/project.ts";
import { scaffoldTask } from "../../src/task/index.ts";

export const CORPUS_DIR = path.resolve(import.meta.dirname, "../fixtures/leak-corpus");
export const CORPUS_ARTEFACT_PATH = "docs/internal/costing.md";

export function corpusFile(name: string): string {
  return readFileSync(path.join(CORPUS_DIR, name), "utf8");
}

export interface AuditTaskSpec {
  instruction?: string;
  artefact?: string;
  audit?: unknown;
  /** Files under environment/, by path. */
  environment?: Record<string, string | Buffer>;
}

/** A task with the corpus' artefact, audit file and instruction unless given; environment as given. */
export function writeAuditTask(paths: ProjectPaths, id: string, spec: AuditTaskSpec = {}): void {
  scaffoldTask(paths, { id, gate: "convention" });
  const taskFile = path.join(paths.tasks, id, "task.json");
  const task = JSON.parse(readFileSync(taskFile, "utf8"));
  task.artefact.path = CORPUS_ARTEFACT_PATH;
  writeFileSync(taskFile, `${JSON.stringify(task, null, 2)}\n`);
  writeFileSync(path.join(paths.artefacts, id, "artefact.md"), spec.artefact ?? corpusFile("artefact.md"));
  writeFileSync(
    path.join(paths.tasks, id, "instruction.md"),
    spec.instruction ?? corpusFile("instruction.md"),
  );
  const audit =
    spec.audit === undefined ? corpusFile("audit.json") : `${JSON.stringify(spec.audit, null, 2)}\n`;
  writeFileSync(path.join(paths.audits, `${id}.json`), audit);
  const envDir = path.join(paths.tasks, id, "environment");
  rmSync(envDir, { recursive: true, force: true });
  const environment = spec.environment ?? { "bom.csv": "assembly,part,qty\nA1,P1,3\n" };
  for (const [name, content] of Object.entries(environment)) {
    mkdirSync(path.dirname(path.join(envDir, name)), { recursive: true });
    writeFileSync(path.join(envDir, name), content);
  }
}
