// A verifier loads when kgate runs from its TypeScript sources (KGATE_NO_BUNDLE=1, tsx): the
// verifier's `kgate/verify` import then reaches the sources and their packages through tsx's
// CommonJS path, so every package on it must resolve under `require` as well as `import`.
import { describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { fillTodos } from "./support/todos.ts";

describe("kgate from its sources", () => {
  it("loads a scaffolded task's verifier and runs its deterministic step", () => {
    const paths = tempProject();
    expect(kgate(["--root", paths.root, "new", "demo"]).code).toBe(0);
    fillTodos(paths, "demo");
    const result = kgate(["--root", paths.root, "check", "--no-sandbox", "--no-ping", "demo"], {
      env: { KGATE_NO_BUNDLE: "1" },
    });
    expect(result.stdout).toMatch(/✓ verifier\s+verifiers\/demo\.ts loads/);
    expect(result.stdout).toMatch(/✓ deterministic\s+same answer/);
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });
});
