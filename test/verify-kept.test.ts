// Kept verification workers share nothing between verifications (issue 40 items 3 and 5, red team
// round 3 V1 and V2): a rubric criterion gets its own copy of the cached reference, so one trial's
// correct output cannot make a later wrong one pass; `kgate check`'s deterministic step verifies a
// wrong answer after the right one and fails a verifier whose verdicts depend on the order; and a CSV
// boolean cell is one of true/false/1/0, never a name an object literal inherits.
import { describe, expect, it } from "vitest";
import { deterministicStep } from "../src/check/verifier-steps.ts";
import { verifyKillable } from "../src/verify/killable.ts";
import { loadVerifier } from "../src/verify/load.ts";
import { tableFromCsv } from "../src/verify/table.ts";
import {
  collected,
  HAND,
  markupOutputs,
  markupProject,
  markupVerifierSource,
  withOutput,
} from "./support/verify-fixture.ts";

/**
 * The markup verifier, its summary judged alone by a rubric whose "lines" check consumes `expected`
 * (a multiset match that takes matched lines out): the red team's V1 verifier, verbatim.
 */
function consumingSource(verifyImport: string): string {
  const rubric = `"output/summary.json": {
      judgesAlone: true,
      criteria: [
        { name: "total", check: (a: { total: number }, e: { total: number }) => Math.abs(a.total - e.total) <= 1e-4 },
        {
          name: "lines",
          check: (a: { lines: Array<{ item: string; value: number }> }, e: { lines: Array<{ item: string; value: number }> }) => {
            for (const l of a.lines) {
              const i = e.lines.findIndex((m) => m.item === l.item && Math.abs(m.value - l.value) <= 1e-4);
              if (i >= 0) e.lines.splice(i, 1);
            }
            return e.lines.length === 0;
          },
        },
      ],
    },
    "output/memo.md": {
      criteria: [`;
  return markupVerifierSource(verifyImport).replace('"output/memo.md": {\n      criteria: [', rubric);
}

/** A verifier that remembers, in a module variable, having seen a correct total: then passes any. */
function rememberingSource(verifyImport: string): string {
  const rubric = `"output/summary.json": {
      judgesAlone: true,
      criteria: [
        { name: "total", check: (a: { total: number }, e: { total: number }) => (seen ||= Math.abs(a.total - e.total) <= 1e-4) },
      ],
    },
    "output/memo.md": {
      criteria: [`;
  return `let seen = false;\n${markupVerifierSource(verifyImport).replace('"output/memo.md": {\n      criteria: [', rubric)}`;
}

/** A summary that states the right total and lists no line. */
const EMPTY_LINES = collected(
  "output/summary.json",
  JSON.stringify({ total: HAND.artefact.total, lines: [] }),
);

describe("a kept verification worker (V1)", () => {
  it("gives the same output the same verdict whatever it verified before", async () => {
    const project = markupProject({ verifier: consumingSource });
    const task = project.load();
    const wrong = withOutput(markupOutputs(HAND.artefact), EMPTY_LINES);
    const first = await verifyKillable(project.paths.root, task, wrong, 60_000);
    expect(first.status).toBe("fail");
    expect(first.reason).toContain("output/summary.json: lines");
    expect(
      (await verifyKillable(project.paths.root, task, markupOutputs(HAND.artefact), 60_000)).status,
    ).toBe("pass");
    // before: the correct output had emptied the cached reference's lines, and this passed
    const after = await verifyKillable(project.paths.root, task, wrong, 60_000);
    expect(after.status).toBe("fail");
    expect(after.criteria).toEqual(first.criteria);
  });
});

describe("kgate check's deterministic step", () => {
  const stepOn = async (verifier: (verifyImport: string) => string) => {
    const task = markupProject({ verifier }).load();
    return deterministicStep.run({ task, verifier: await loadVerifier(task) } as never);
  };

  it("fails a verifier whose verdicts depend on what it verified before", async () => {
    // the right answer twice passes twice (all the step checked before); the default answer, wrong,
    // fails before it and passes after it
    const [outcome] = await stepOn(rememberingSource);
    expect(outcome?.status).toBe("fail");
    expect(outcome?.detail).toContain("keeps state between verifications");
  });

  it("passes the consuming criterion now that each verification has its own reference", async () => {
    const [outcome] = await stepOn(consumingSource);
    expect(outcome).toMatchObject({ status: "pass" });
    expect(outcome?.detail).toContain("unchanged after it");
  });
});

describe("CSV boolean cells (V2)", () => {
  it("are true, false, 1 or 0: a name an object inherits is a format error", () => {
    const output = {
      path: "out.csv",
      format: "csv",
      maxBytes: 1_000_000,
      columns: [
        { name: "id", type: "string" },
        { name: "flag", type: "boolean" },
      ],
      key: ["id"],
      compare: { tolerance: { abs: 0, rel: 0 }, normalise: [] },
    } as never;
    for (const cell of ["constructor", "__proto__", "CONSTRUCTOR", "toString", "hasOwnProperty", "maybe"]) {
      const built = tableFromCsv(output, `id,flag\na,${cell}\n`, true);
      expect(built, cell).toEqual({
        ok: false,
        reason: `line 2: flag: ${JSON.stringify(cell)} is not a boolean (true/false/1/0)`,
      });
    }
    const ok = tableFromCsv(output, "id,flag\na,TRUE\nb,0\n", true);
    expect(ok.ok && ok.value.rows).toEqual([
      ["a", true],
      ["b", false],
    ]);
  });
});
