// Test support: throw-away kgate projects in temporary folders.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { type ProjectPaths, projectPaths } from "../../src/project.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempProject(): ProjectPaths {
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-test-"));
  made.push(dir);
  return projectPaths(dir);
}

export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
