// Checks for a curator's leftovers, which would otherwise pass silently: TODO markers of the
// scaffold, environment files that are not UTF-8, symlinks and dotfiles in environment/ (never
// copied into the sandbox), and an artefact without a recognisable canary.
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { relativeToProject } from "../project.ts";
import { type LoadedTask, listFiles } from "../task/index.ts";
import type { CheckContext, CheckStep } from "./types.ts";

/** The scaffold's marker, as a word (so "TODOS" or "mastodon" do not count). */
const TODO = /\bTODO\b/;
/** Environment files that are binary by format; every other file must be UTF-8 text. */
const BINARY_EXTENSIONS = new Set([".xlsx", ".xls", ".pdf", ".png", ".jpg", ".jpeg", ".gif", ".zip", ".gz"]);
const SHOWN = 5;

/** Every file the curator writes for a task, as absolute paths. */
function authoredFiles(task: LoadedTask): string[] {
  const files = [
    path.join(task.dir, "task.json"),
    path.join(task.dir, "instruction.md"),
    task.artefact.absPath,
    ...task.variants.map((v) => v.absPath),
    task.verifierPath,
    task.auditPath,
    ...listFiles(task.solutionDir).map((f) => path.join(task.solutionDir, f)),
  ];
  return files.filter((f) => existsSync(f));
}

function todoLines(context: CheckContext, task: LoadedTask): string[] {
  const found: string[] = [];
  for (const file of authoredFiles(task)) {
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (TODO.test(line)) found.push(`${relativeToProject(context.paths, file)}:${i + 1}`);
    });
  }
  return found;
}

function notUtf8(context: CheckContext, task: LoadedTask): string[] {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return task.environment
    .filter((f) => !BINARY_EXTENSIONS.has(path.extname(f.path).toLowerCase()))
    .filter((f) => {
      try {
        decoder.decode(readFileSync(f.absPath));
        return false;
      } catch {
        return true;
      }
    })
    .map((f) => relativeToProject(context.paths, f.absPath));
}

/** Entries of environment/ that listFiles skips: dotfiles, symlinks, anything not a file or folder. */
function hiddenEntries(context: CheckContext, task: LoadedTask): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name);
      const stat = lstatSync(abs);
      const rel = relativeToProject(context.paths, abs);
      if (entry.name.startsWith(".")) found.push(`${rel} (dotfile)`);
      else if (stat.isSymbolicLink()) found.push(`${rel} (symlink)`);
      else if (stat.isDirectory()) walk(abs);
      else if (!stat.isFile()) found.push(`${rel} (not a regular file)`);
    }
  };
  const environment = path.join(task.dir, "environment");
  if (existsSync(environment)) walk(environment);
  return found;
}

function listed(items: string[]): string {
  const more = items.length > SHOWN ? ` and ${items.length - SHOWN} more` : "";
  return `${items.slice(0, SHOWN).join(", ")}${more}`;
}

export const leftoverStep: CheckStep = {
  id: "leftovers",
  needs: ["task"],
  async run(context) {
    const task = context.task!;
    const problems: string[] = [];
    const todos = todoLines(context, task);
    if (todos.length > 0) problems.push(`${todos.length} TODO marker(s) left: ${listed(todos)}`);
    const binary = notUtf8(context, task);
    if (binary.length > 0) problems.push(`not UTF-8 text: ${listed(binary)}`);
    const hidden = hiddenEntries(context, task);
    if (hidden.length > 0)
      problems.push(`never copied into the sandbox: ${listed(hidden)} (rename, or copy the target)`);
    if (!task.artefact.canary) {
      problems.push(
        `${relativeToProject(context.paths, task.artefact.absPath)} has no canary GUID (add <!-- kgate-canary: <guid> -->)`,
      );
    }
    if (problems.length > 0) return [{ status: "fail", detail: problems.join("; ") }];
    return [
      {
        status: "pass",
        detail: `no TODO marker, no hidden or non-UTF-8 environment file, canary ${task.artefact.canary}`,
      },
    ];
  },
};
