// A task's verifier compiled once per process to one plain ES module, so the verification worker
// threads (and the process itself, from the bundle) import JavaScript instead of starting tsx and
// esbuild to compile TypeScript again.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { bundleModule, ownedTempDir } from "../common/index.ts";
import type { LoadedTask } from "../task/index.ts";

let folder: string | undefined;
const compiled = new Map<string, Promise<string | undefined>>();
/** The compiled files this process wrote: the only files a stack's lines are mapped back from. */
const compiledFiles = new Set<string>();
const sourceMaps = new Map<string, SourceMap | undefined>();

/** `file` is a compiled verifier (written by this thread, or by the thread that handed it over). */
export function knowCompiled(file: string): void {
  compiledFiles.add(file);
}

/** The source map a compiled verifier ends with (undefined for any other file). */
export function compiledSourceMap(file: string): SourceMap | undefined {
  if (!compiledFiles.has(file)) return undefined;
  if (!sourceMaps.has(file)) {
    const inline = /\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/.exec(
      readFileSync(file, "utf8"),
    );
    sourceMaps.set(
      file,
      inline ? new SourceMap(JSON.parse(Buffer.from(inline[1]!, "base64").toString())) : undefined,
    );
  }
  return sourceMaps.get(file);
}

/**
 * This process's folder of compiled verifiers, removed when the process exits; its name carries the
 * process, so the reaper removes it after a process that was killed (`kgate sandbox reap`).
 */
function compiledFolder(): string {
  if (!folder) {
    const made = ownedTempDir("verifiers");
    folder = made;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return folder;
}

/**
 * The path of the task's verifier bundled to .mjs (once per verifier file and task digest), or
 * undefined when it cannot be bundled: the worker then imports the TypeScript itself, and reports
 * whatever is wrong with it in the words of a failed import.
 */
export function compiledVerifier(task: LoadedTask): Promise<string | undefined> {
  const key = `${task.verifierPath}\u0000${task.digests.task}`;
  let compiling = compiled.get(key);
  if (!compiling) {
    // Numbered when asked, not when bundled: two bundles finishing together get two files.
    const index = compiled.size;
    compiling = bundleModule({ entry: task.verifierPath, target: "node20", sourceMap: true }).then(
      (text) => {
        const file = path.join(compiledFolder(), `${task.id}-${index}.mjs`);
        writeFileSync(file, text);
        compiledFiles.add(file);
        return file;
      },
      () => undefined,
    );
    compiled.set(key, compiling);
  }
  return compiling;
}
