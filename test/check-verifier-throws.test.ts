// kgate check on a task whose verifier throws when run (issue 47 item 4): the deterministic step names
// the line of the throw, and the sandbox steps are skipped saying so instead of spending a minute on
// trials whose verification would only meet the same throw. No sandbox is started.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { fillTodos } from "./support/todos.ts";

const THROW = 'if (c.rate > 0.1) throw new Error("the solver broke");';

describe("kgate check with a verifier that throws", () => {
  it("names the line of the throw and skips the sandbox trials", () => {
    const paths = tempProject();
    expect(kgate(["--root", paths.root, "new", "demo"]).code).toBe(0);
    fillTodos(paths, "demo");
    const file = path.join(paths.verifiers, "demo.ts");
    // the scaffold's solver throws under the artefact's rate (0.12) and the variants' (0.15, 0.12)
    const source = readFileSync(file, "utf8").replace("solve(files, c) {", `solve(files, c) {\n    ${THROW}`);
    writeFileSync(file, source);
    // the line the throw is on, counted in the file as written (1-based)
    const line = source.split("\n").findIndex((l) => l.includes(THROW)) + 1;
    expect(line).toBeGreaterThan(1);

    const result = kgate(["--root", paths.root, "check", "demo"]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain(
      `✗ deterministic       verifiers/demo.ts:${line}: solve() threw under the artefact conventions: the solver broke`,
    );
    const skipped = `the verifier threw at verifiers/demo.ts:${line}: its sandbox trials are not run (fix the verifier, then check again)`;
    for (const step of ["oracle", "noop", "oracle:variants", "oracle:conventions"]) {
      expect(result.stdout).toMatch(new RegExp(`· ${step} +${skipped.replace(/[.()]/g, "\\$&")}\\n`));
    }
    // no sandbox was opened: no progress line of a trial, no image prepared
    expect(result.stderr).not.toMatch(/in the sandbox|sandbox:/);
  });
});
