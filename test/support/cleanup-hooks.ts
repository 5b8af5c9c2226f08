// Test support (vitest setupFiles, run before every test file, also where files share a worker):
// the hooks that run the cleanups support modules queued (cleanups.ts).
import { afterAll, afterEach } from "vitest";
import { runCleanups } from "./cleanups.ts";

afterEach(() => runCleanups("test"));
afterAll(() => runCleanups("file"));
