// Loading verifier modules: clear errors naming the file and field; a broken verifier gives an
// `unverified` verdict, never an exception; a scaffolded task's verifier works as written.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadValidTask, scaffoldTask, verifyImportFrom } from "../src/task/index.ts";
import { loadVerifier, VerifierLoadError, verifyTrial } from "../src/verify/index.ts";
import { tempProject } from "./support/project.ts";
import { HAND, markupOutputs, markupProject, markupVerifierSource } from "./support/verify-fixture.ts";

function withVerifier(source: (imp: string) => string) {
  return markupProject({ verifier: source }).load();
}

describe("loadVerifier", () => {
  it("loads a valid module and exposes its rubric per output", async () => {
    const loaded = await loadVerifier(markupProject().load());
    expect(loaded.file).toBe("verifiers/markup.ts");
    expect(loaded.rubricOf("output/memo.md")?.criteria.map((c) => c.name)).toEqual([
      "states the total",
      "names every item",
    ]);
    expect(loaded.rubricOf("output/result.csv")).toBeUndefined();
  });

  it("names the file when the module has no default export", async () => {
    const task = withVerifier(() => "export const conventions = {};\n");
    await expect(loadVerifier(task)).rejects.toThrow(
      /^verifiers\/markup\.ts: has no default export \(expected `export default defineVerifier/,
    );
  });

  it("names the file and the fields when the export is not a verifier", async () => {
    const task = withVerifier(
      () => "export default { conventions: { artefact: 1, variants: {} }, solve: 3 };\n",
    );
    const error = await loadVerifier(task).catch((e: Error) => e);
    expect(error).toBeInstanceOf(VerifierLoadError);
    expect((error as Error).message).toBe(
      "verifiers/markup.ts: the default export is not a verifier: conventions.default: required field missing; solve: must be a function",
    );
  });

  it("names the file when the module cannot be imported", async () => {
    const task = withVerifier(() => "export default {{ not typescript\n");
    await expect(loadVerifier(task)).rejects.toThrow(/^verifiers\/markup\.ts: could not be imported: /);
  });

  it("requires conventions for exactly the variants task.json declares", async () => {
    const task = withVerifier((imp) =>
      markupVerifierSource(imp).replace("compressed: { rate: 0.12 }", "smaller: { rate: 0.12 }"),
    );
    await expect(loadVerifier(task)).rejects.toThrow(
      "verifiers/markup.ts: conventions.variants.compressed: missing for the variant declared in tasks/markup/task.json; conventions.variants.smaller: no such variant in tasks/markup/task.json",
    );
  });

  it("refuses a criterion weight that is not a positive number, naming the field", async () => {
    const task = withVerifier((imp) =>
      markupVerifierSource(imp).replace(
        '{ name: "states the total",',
        '{ name: "states the total", weight: -1,',
      ),
    );
    await expect(loadVerifier(task)).rejects.toThrow(
      /^verifiers\/markup\.ts: the default export is not a verifier: rubric\.output\/memo\.md\.criteria\[0\]\.weight: /,
    );
  });

  it("refuses judgesAlone on a text output (a text with a rubric is judged by it alone)", async () => {
    const task = withVerifier((imp) =>
      markupVerifierSource(imp).replace("render: (e", "judgesAlone: true, render: (e"),
    );
    await expect(loadVerifier(task)).rejects.toThrow(
      "verifiers/markup.ts: rubric.output/memo.md.judgesAlone: only for csv and json outputs",
    );
  });

  it("requires a render function for a rubric on a text output", async () => {
    const task = withVerifier((imp) => markupVerifierSource(imp).replace(/render: [^\n]*\n/, ""));
    await expect(loadVerifier(task)).rejects.toThrow(
      /rubric\.output\/memo\.md\.render: required for a text output/,
    );
  });
});

describe("verifyTrial with a broken verifier", () => {
  it("returns an unverified verdict naming the file when the module is invalid", async () => {
    const task = withVerifier(() => "export default 42;\n");
    const verdict = await verifyTrial(task, markupOutputs(HAND.artefact));
    expect(verdict).toMatchObject({ status: "unverified", reward: 0, attribution: null });
    expect(verdict.reason).toMatch(/^verifiers\/markup\.ts: the default export is not a verifier/);
  });

  it("returns an unverified verdict when solve throws or answers off-contract", async () => {
    let written = "";
    const throwing = withVerifier((imp) => {
      written = markupVerifierSource(imp).replace(
        "solve(files, c) {",
        'solve(files, c) {\n    if (c.rate > 0.1) throw new Error("no data");',
      );
      return written;
    });
    const a = await verifyTrial(throwing, markupOutputs(HAND.artefact));
    expect(a.status).toBe("unverified");
    // the message names the line of the throw in the file as written (1-based)
    const line = written.split("\n").findIndex((l) => l.includes('throw new Error("no data")')) + 1;
    expect(line).toBeGreaterThan(1);
    expect(a.reason).toBe(
      `verifiers/markup.ts:${line}: solve() threw under the artefact conventions: no data`,
    );

    const offContract = withVerifier((imp) =>
      markupVerifierSource(imp).replace(
        '"output/result.csv": rows,',
        '"output/result.csv": rows.map((r) => ({ ...r, value: String(r.value) })),',
      ),
    );
    const b = await verifyTrial(offContract, markupOutputs(HAND.artefact));
    expect(b.status).toBe("unverified");
    expect(b.reason).toBe(
      'verifiers/markup.ts: the artefact answer for "output/result.csv" breaks the output contract: row 1: value: "2.8" is not a finite number',
    );
  });
});

describe("the verifier scaffolded by kgate new", () => {
  it("imports the library, loads, and verifies the scaffolded oracle's answer", async () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const task = loadValidTask(paths, "demo");
    const loaded = await loadVerifier(task);
    expect(Object.keys(loaded.verifier.conventions.variants)).toEqual(["perturbed", "compressed"]);
    // what solution/solve.sh writes for widget 3 and gadget 5 at 12%: 3.36 and 5.60
    const csv = "item,value\nwidget,3.36\ngadget,5.60\n";
    const outputs = [{ path: "output/result.csv", status: "collected" as const, bytes: Buffer.from(csv) }];
    expect((await verifyTrial(task, outputs)).status).toBe("pass");
    const plain = [{ ...outputs[0]!, bytes: Buffer.from("item,value\nwidget,3\ngadget,5\n") }];
    expect((await verifyTrial(task, plain)).attribution).toBe("default-convention");
  });

  it("computes a relative import of the library from the verifiers folder", () => {
    const paths = tempProject();
    const specifier = verifyImportFrom(paths.verifiers);
    expect(specifier).toMatch(/^\.\.?\/.*src\/verify\/index\.ts$/);
    expect(path.resolve(paths.verifiers, specifier)).toBe(
      path.resolve(import.meta.dirname, "../src/verify/index.ts"),
    );
  });
});
