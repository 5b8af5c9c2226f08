// Test support: the sandbox image built by the global setup, and small real task projects.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import type { ProjectPaths } from "../../src/project.ts";
import { type LoadedTask, loadValidTask, scaffoldTask, type TaskSpecInput } from "../../src/task/index.ts";
import { tempProject } from "./project.ts";
import { SETUP_STEP } from "./requirements.ts";

/** The tag of the sandbox image (built once per test run by test/support/global-setup.ts). */
export function sandboxImage(): string {
  const image = inject("sandboxImage");
  if ("error" in image)
    throw new Error(`no sandbox image for the Docker tests: ${image.error}; ${SETUP_STEP}`);
  return image.tag;
}

export interface DemoTask {
  paths: ProjectPaths;
  task: LoadedTask;
}

/**
 * A scaffolded task `demo` (its oracle writes output/result.csv with python3), optionally with a
 * changed task.json and solution script.
 */
export function demoTask(
  options: { spec?: (spec: TaskSpecInput) => void; solution?: string; id?: string } = {},
): DemoTask {
  const paths = tempProject();
  const id = options.id ?? "demo";
  scaffoldTask(paths, { id, gate: "convention" });
  const specFile = path.join(paths.tasks, id, "task.json");
  if (options.spec) {
    const spec = JSON.parse(readFileSync(specFile, "utf8")) as TaskSpecInput;
    options.spec(spec);
    writeFileSync(specFile, JSON.stringify(spec, null, 2));
  }
  if (options.solution !== undefined) {
    writeFileSync(path.join(paths.tasks, id, "solution", "solve.sh"), options.solution);
  }
  return { paths, task: loadValidTask(paths, id) };
}
