// Test runner settings: Docker tests are slow, so they get generous timeouts and limited parallelism.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Builds (or finds) the sandbox image once per run and provides its tag to the Docker tests.
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
  },
});
