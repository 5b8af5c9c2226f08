// Where a kgate project keeps things: finds the project root and names its folders.
import { existsSync } from "node:fs";
import path from "node:path";

export interface ProjectPaths {
  root: string;
  tasks: string;
  artefacts: string;
  verifiers: string;
  audits: string;
  sandbox: string;
  runs: string;
  config: string;
}

export function projectPaths(root: string): ProjectPaths {
  const abs = path.resolve(root);
  return {
    root: abs,
    tasks: path.join(abs, "tasks"),
    artefacts: path.join(abs, "artefacts"),
    verifiers: path.join(abs, "verifiers"),
    audits: path.join(abs, "audits"),
    sandbox: path.join(abs, "sandbox"),
    runs: path.join(abs, "runs"),
    config: path.join(abs, "kgate.config.json"),
  };
}

/** The nearest ancestor of `start` holding kgate.config.json or a tasks/ folder; else `start` itself. */
export function findProjectRoot(start: string = process.cwd()): string {
  let dir = path.resolve(start);
  for (;;) {
    if (existsSync(path.join(dir, "kgate.config.json")) || existsSync(path.join(dir, "tasks"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(start);
    dir = parent;
  }
}

/** Project-relative POSIX path, for messages. */
export function relativeToProject(paths: ProjectPaths, file: string): string {
  return path.relative(paths.root, file).split(path.sep).join("/");
}
