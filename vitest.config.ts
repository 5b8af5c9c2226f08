// Test runner settings: Docker tests are slow, so they get generous timeouts and limited parallelism.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
  },
});
