// A task's environment/ folder read defensively: a symbolic link (the folder itself or any entry) or a
// special file is an error naming it and is never followed, and a file over the size cap is an error
// naming the file; curators are trusted, but a mistake here must be loud, not a copy of the host's /etc.
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import type { Problem } from "./problems.ts";

/** Largest environment file accepted unless task.json's limits.environmentFileMb says otherwise. */
export const DEFAULT_ENVIRONMENT_FILE_MB = 64;

export interface EnvironmentListing {
  /** POSIX paths relative to environment/, sorted. */
  files: string[];
  errors: Problem[];
}

/** Lists the regular files under `dir` (dotfiles skipped); `rel` names a path for messages. */
export function listEnvironment(
  dir: string,
  rel: (abs: string) => string,
  maxMb: number,
): EnvironmentListing {
  const files: string[] = [];
  const errors: Problem[] = [];
  const error = (abs: string, message: string) => errors.push({ severity: "error", file: rel(abs), message });
  const root = lstatSync(dir, { throwIfNoEntry: false });
  if (!root) return { files, errors };
  if (root.isSymbolicLink()) {
    error(dir, "the environment folder is a symbolic link; links are not followed (copy the files in)");
    return { files, errors };
  }
  if (!root.isDirectory()) {
    error(dir, "environment is not a folder");
    return { files, errors };
  }
  const walk = (abs: string, relPath: string) => {
    for (const name of readdirSync(abs).sort()) {
      if (name.startsWith(".")) continue;
      const child = path.join(abs, name);
      const childRel = relPath ? `${relPath}/${name}` : name;
      const stat = lstatSync(child);
      if (stat.isSymbolicLink())
        error(child, "is a symbolic link; links are not followed (copy the file in)");
      else if (stat.isDirectory()) walk(child, childRel);
      else if (!stat.isFile()) error(child, "is not a regular file");
      else if (stat.size > maxMb * 1024 * 1024) {
        error(
          child,
          `is ${stat.size} bytes, over the cap of ${maxMb} MiB (task.json limits.environmentFileMb)`,
        );
      } else files.push(childRel);
    }
  };
  walk(dir, "");
  return { files: files.sort(), errors };
}
