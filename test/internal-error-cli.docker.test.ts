// An exception thrown by kgate's own code during a trial (injected into the oracle agent here):
// recorded as `internal`, not retried, and the command exits non-zero with the stack.
import { afterEach, describe, expect, it, vi } from "vitest";
import { readTrialRecords } from "../src/trial/index.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";

afterEach(() => {
  vi.restoreAllMocks();
  // The broken oracle must not outlive this file in a shared worker.
  vi.doUnmock("../src/agents/oracle.ts");
  vi.resetModules();
});

describe("kgate's own bug during a trial", () => {
  it("is recorded as internal, not retried, and `kgate run` exits 2 with the stack", async () => {
    sandboxImage();
    const { paths } = demoTask();
    // Fresh modules with the broken oracle: where test files share a worker, an earlier file may
    // already have loaded the real one, so the mock is installed before a re-import, not hoisted.
    vi.resetModules();
    vi.doMock("../src/agents/oracle.ts", async (original) => {
      const real = await original<typeof import("../src/agents/oracle.ts")>();
      return {
        ...real,
        oracleAgent: () => ({
          ...real.oracleAgent(),
          run: async () => {
            const broken = undefined as unknown as { field: string };
            return broken.field as never; // a TypeError inside kgate, as a real bug would throw
          },
        }),
      };
    });
    const { main } = await import("../src/cli.ts");
    const errors: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      errors.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const code = await main([
      "node",
      "kgate",
      "--root",
      paths.root,
      "run",
      "demo",
      "--agent",
      "oracle",
      "--retries",
      "3",
      "--run-id",
      "bug",
    ]);
    vi.restoreAllMocks();
    const stderr = errors.join("");
    expect(code).toBe(2);
    expect(stderr).toMatch(/1 trial\(s\) met an internal error/);
    expect(stderr).toMatch(/TypeError: Cannot read properties of undefined \(reading 'field'\)\n\s+at /);
    expect(stderr).toMatch(/this is a bug in kgate: please report it/);
    const { records } = readTrialRecords(`${paths.runs}/bug`);
    expect(records).toHaveLength(1); // --retries 3, yet one attempt: internal errors are never retried
    expect(records[0]?.error).toMatchObject({ kind: "internal", owner: "kgate" });
  });
});
