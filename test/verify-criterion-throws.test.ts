// A rubric criterion that throws on the agent's output (issue 47 item 4): the failed criterion names
// the verifier's line of the throw (the verification runs in a worker from the verifier's compiled
// bundle; its source map maps the line back), not only the error's message.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { verifyTrial } from "../src/verify/index.ts";
import { MEMO, memoOutputs, memoVerifierSource, TOTALS } from "./support/judge-task.ts";
import { markupProject } from "./support/verify-fixture.ts";

const NAMES_ITEMS = "check: (text: string, e: Memo) => e.items.every((i) => text.includes(i))";
const THROWS =
  'check: (text: string) => { if (text.includes("gear")) throw new Error("no gears here"); return true; }';

describe("a criterion that throws", () => {
  it("fails naming the verifier's line of the throw", async () => {
    const project = markupProject({
      verifier: (verifyImport) => {
        const source = memoVerifierSource(verifyImport);
        expect(source).toContain(NAMES_ITEMS);
        return source.replace(NAMES_ITEMS, THROWS);
      },
      spec: (spec) => {
        spec.outputs = [{ path: MEMO, format: "text" }];
      },
    });
    const file = path.join(project.paths.verifiers, "markup.ts");
    const line =
      readFileSync(file, "utf8")
        .split("\n")
        .findIndex((l) => l.includes("no gears here")) + 1;
    expect(line).toBeGreaterThan(1);
    const verdict = await verifyTrial(project.load(), memoOutputs(TOTALS.artefact));
    expect(verdict.criteria.find((c) => c.name === `${MEMO}: names every item`)).toEqual({
      name: `${MEMO}: names every item`,
      passed: false,
      detail: `the check threw at verifiers/markup.ts:${line}: no gears here`,
      weight: 1,
    });
  });
});
