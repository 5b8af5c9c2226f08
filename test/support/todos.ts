// Test support: a curator's pass over a scaffolded task, filling every TODO marker the scaffold left.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ProjectPaths } from "../../src/project.ts";
import { listFiles } from "../../src/task/index.ts";

/** Removes the TODO markers (`TODO: `, `TODO-`, `TODO`) from every file the scaffold wrote for `id`. */
export function fillTodos(paths: ProjectPaths, id: string): void {
  const files = [
    ...listFiles(path.join(paths.tasks, id)).map((f) => path.join(paths.tasks, id, f)),
    ...listFiles(path.join(paths.artefacts, id)).map((f) => path.join(paths.artefacts, id, f)),
    path.join(paths.verifiers, `${id}.ts`),
    path.join(paths.audits, `${id}.json`),
  ];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(/TODO(: |-| )?/g, ""));
  }
}
