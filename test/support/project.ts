// Test support: throw-away kgate projects in temporary folders.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach } from "vitest";
import { type ProjectPaths, projectPaths } from "../../src/project.ts";

const made: string[] = [];
const madeForFile: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(() => {
  for (const dir of madeForFile.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary project, removed after the current test (or after the test file with scope "file"). */
export function tempProject(scope: "test" | "file" = "test"): ProjectPaths {
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-test-"));
  (scope === "file" ? madeForFile : made).push(dir);
  return projectPaths(dir);
}

export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
