// Test support: throw-away kgate projects in temporary folders.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ProjectPaths, projectPaths } from "../../src/project.ts";
import { afterThis } from "./cleanups.ts";

/** A temporary folder `<prefix>XXXXXX`, removed after the current test (or test file, scope "file"). */
export function tempDir(prefix = "kgate-test-", scope: "test" | "file" = "test"): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterThis(scope, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A temporary project, removed after the current test (or after the test file with scope "file"). */
export function tempProject(scope: "test" | "file" = "test"): ProjectPaths {
  return projectPaths(tempDir("kgate-test-", scope));
}

export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
