// Test runner settings: two lanes, told apart by a test file's name. `npm run test:unit` runs the
// unit project (no Docker daemon, no Chromium, no installed harness); `npm test` runs every project.
// Docker tests are slow, so they get generous timeouts and limited parallelism.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongestFirstSequencer } from "./test/support/sequencer.ts";

/** Files that need a Docker daemon (they may use Chromium too) and files that need Chromium only. */
const DOCKER = "test/**/*.docker.test.ts";
const BROWSER = "test/**/*.browser.test.ts";

export default defineConfig({
  // The library tasks' verifiers import "kgate/verify" (the package's export, a built file): the tests
  // read it from the sources under test.
  resolve: { alias: { "kgate/verify": fileURLToPath(new URL("./src/verify/index.ts", import.meta.url)) } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
    // The same longest-first order on every machine, a fresh clone included (test/durations.json).
    sequence: { sequencer: LongestFirstSequencer },
    // Every project: the tests' `kgate` runs start from a bundle of the sources under test.
    globalSetup: ["test/support/bundle-setup.ts"],
    // Before every test file: the hooks that undo what the tests made (temp folders, processes).
    setupFiles: ["test/support/cleanup-hooks.ts"],
    projects: [
      {
        extends: true,
        // Unit files share their workers' module cache (threads, no isolation): most of the lane's
        // time was each file importing the sources anew. A unit test keeps no state across files.
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [DOCKER, BROWSER],
          pool: "threads",
          isolate: false,
        },
      },
      {
        extends: true,
        // Finds the Docker daemon (or fails the run in one line naming the setup step), builds or
        // finds the sandbox image once per run and provides its tag to the Docker tests.
        // Docker files share their worker processes' module cache too (forks, no isolation): the
        // lane is CPU-bound, and importing the sources anew cost each file about a second.
        test: {
          name: "docker",
          include: [DOCKER],
          // Real containers take as long as the machine's load makes them (CI runs at load 15-30 on
          // two cores): the timeout bounds a hang, not a speed. Files leave it to this one bound.
          testTimeout: 600_000,
          isolate: false,
          globalSetup: ["test/support/bundle-setup.ts", "test/support/global-setup.ts"],
        },
      },
      { extends: true, test: { name: "browser", include: [BROWSER] } },
    ],
  },
});
