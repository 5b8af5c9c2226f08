// Test support: what a test made and must undo (temp folders, host processes, images), queued by the
// support module that made it and run by the hooks of cleanup-hooks.ts after each test or test file.
// A queue, not hooks of the support modules' own: where test files share a worker (the unit lane),
// a module is imported once, so hooks it registered at import would serve only the first file.

type Scope = "test" | "file";
const queued: Record<Scope, Array<() => unknown>> = { test: [], file: [] };

/** Runs `undo` after the current test ("test") or after the current test file ("file"). */
export function afterThis(scope: Scope, undo: () => unknown): void {
  queued[scope].push(undo);
}

/** Runs and forgets every undo of `scope` (a file's end runs the tests' too), newest first. */
export async function runCleanups(scope: Scope): Promise<void> {
  const due = scope === "file" ? [...queued.test.splice(0), ...queued.file.splice(0)] : queued.test.splice(0);
  for (const undo of due.reverse()) await undo();
}
