// The oracle follows the artefact (kgate check's oracle:conventions) and a crash under a variant is a
// failure whatever the output type: scaffolded tasks, their oracles run in the real sandbox.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ProjectPaths } from "../src/project.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { fillTodos } from "./support/todos.ts";

interface CheckJson {
  tasks: Array<{ checks: Array<{ id: string; status: string; detail: string }> }>;
}

function checkOf(stdout: string, id: string) {
  return (JSON.parse(stdout) as CheckJson).tasks[0]!.checks.find((c) => c.id === id);
}

function edit(file: string, from: string | RegExp, to: string): void {
  const text = readFileSync(file, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`${file}: nothing replaced for ${from}`);
  writeFileSync(file, next);
}

const FEE_SECTION =
  "<!-- kgate:convention fee -->\n- A handling fee of 2 on every line.\n<!-- /kgate:convention -->\n";

/**
 * The csv scaffold with a second convention, a handling fee of 2 per line (default 0), that the
 * perturbed variant leaves as it is: only a derived variant can show whether the oracle reads it.
 */
function feeTask(oracleFee: string): ProjectPaths {
  const paths = tempProject();
  expect(kgate(["--root", paths.root, "new", "demo", "--output", "csv"]).code).toBe(0);
  fillTodos(paths, "demo");
  const art = (f: string) => path.join(paths.artefacts, "demo", f);
  for (const file of ["artefact.md", "variants/perturbed.md", "variants/compressed.md"])
    edit(art(file), "<!-- /kgate:convention -->\n", `<!-- /kgate:convention -->\n${FEE_SECTION}`);
  const verifier = path.join(paths.verifiers, "demo.ts");
  edit(verifier, "rate: number;\n", "rate: number;\n  fee: number;\n");
  edit(verifier, "artefact: { rate: 0.12 }", "artefact: { rate: 0.12, fee: 2 }");
  edit(verifier, "default: { rate: 0 }", "default: { rate: 0, fee: 0 }");
  edit(
    verifier,
    "perturbed: { rate: 0.15 }, compressed: { rate: 0.12 }",
    "perturbed: { rate: 0.15, fee: 2 }, compressed: { rate: 0.12, fee: 2 }",
  );
  edit(verifier, "(1 + c.rate) * 100)", "(1 + c.rate) * 100 + c.fee * 100)");
  const solve = path.join(paths.tasks, "demo", "solution", "solve.sh");
  edit(solve, 'int(row["quantity"]) * (1 + rate))', `int(row["quantity"]) * (1 + rate) + ${oracleFee})`);
  return paths;
}

describe("kgate check: the oracle follows every convention of the artefact", () => {
  it("fails an oracle that hard-codes a convention the perturbed variant does not change, naming it", () => {
    sandboxImage();
    const paths = feeTask("2");
    const result = kgate(["--root", paths.root, "check", "--json"], { timeoutMs: 240_000 });
    expect(result.code).toBe(1);
    // The fee section rewritten 2 -> 0: the verifier's answer drops 2 per line, the oracle's does not
    // (the scaffold's 2 rows; widget, quantity 3: 3 x 1.12 = 3.36, and the oracle's 3.36 + 2 = 5.36).
    expect(checkOf(result.stdout, "oracle:conventions")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /^the oracle does not follow the artefact: under a variant that changes only "fee" \(2 -> 0\): the oracle's answer is not the verifier's for that convention \(output\/result\.csv: 2 of 2 value\(s\) differ, in 2 row\(s\); first: item=widget value: expected 3\.36, got 5\.36; /,
      ),
    });
    // Every other check passes: the blind spot was invisible before this step.
    const others = (JSON.parse(result.stdout) as CheckJson).tasks[0]!.checks.filter(
      (c) => c.id !== "oracle:conventions" && c.status === "fail",
    );
    expect(others).toEqual([]);
  }, 300_000);

  it("passes an oracle that reads the convention from the placed document", () => {
    const paths = feeTask('int(re.search(r"fee of (\\d+)", spec).group(1))');
    const result = kgate(["--root", paths.root, "check", "--json"], { timeoutMs: 240_000 });
    expect(checkOf(result.stdout, "oracle:conventions")).toMatchObject({
      status: "pass",
      detail: "the oracle follows fee when a variant changes that convention alone",
    });
    expect(result.code).toBe(0);
  }, 300_000);
});

describe("kgate check: a perturbed variant whose text disagrees with the verifier", () => {
  it("names the convention that disagrees", () => {
    // The verifier's perturbed set says a fee of 3; the perturbed text still says 2 (the oracle reads 2).
    const paths = feeTask('int(re.search(r"fee of (\\d+)", spec).group(1))');
    edit(
      path.join(paths.verifiers, "demo.ts"),
      "perturbed: { rate: 0.15, fee: 2 }",
      "perturbed: { rate: 0.15, fee: 3 }",
    );
    const result = kgate(["--root", paths.root, "check", "--json"], { timeoutMs: 240_000 });
    expect(result.code).toBe(1);
    expect(checkOf(result.stdout, "oracle:variant:perturbed")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(
        /the oracle's answer is the verifier's with "fee" at the artefact's value: the variant's text still states it/,
      ),
    });
  }, 300_000);
});

describe("kgate check: an oracle that crashes under a variant", () => {
  it("fails oracle:variant of a text deliverable judged by its rubric (it used to pass as a failing verdict)", () => {
    const paths = tempProject();
    expect(kgate(["--root", paths.root, "new", "demo", "--output", "text"]).code).toBe(0);
    fillTodos(paths, "demo");
    const solve = path.join(paths.tasks, "demo", "solution", "solve.sh");
    // The oracle stops when it reads the perturbed variant's 15%.
    edit(
      solve,
      "rate = int(",
      'import sys\nif "15%" in spec: sys.exit("cannot read this wording")\nrate = int(',
    );
    const result = kgate(["--root", paths.root, "check", "--json"], { timeoutMs: 240_000 });
    expect(result.code).toBe(1);
    expect(checkOf(result.stdout, "oracle:variant:perturbed")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/^perturbed: the oracle did not run through under this variant \(/),
    });
  }, 300_000);
});
