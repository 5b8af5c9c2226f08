// The verifier's worker imports a compiled module: the parent bundles verifiers/<id>.ts once per
// process to plain JavaScript, the killable worker verifies with it exactly as the TypeScript does,
// and a verifier that cannot be bundled still fails in the words of a failed import.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compiledVerifier } from "../src/verify/compiled.ts";
import { VerifierRunError, verifyKillable, verifyTrial } from "../src/verify/index.ts";
import { HAND, markupOutputs, markupProject } from "./support/verify-fixture.ts";

describe("the compiled verifier", () => {
  it("is one plain ES module per verifier, made once, with kgate's verification inlined", async () => {
    const task = markupProject().load();
    const file = await compiledVerifier(task);
    expect(file).toMatch(/\.mjs$/);
    expect(existsSync(file!)).toBe(true);
    const text = readFileSync(file!, "utf8");
    // No import of TypeScript is left: defineVerifier came from src/verify and is bundled in.
    expect(text).not.toMatch(/from\s+"[^"]*\.ts"/);
    expect(text).toContain("defineVerifier");
    expect(await compiledVerifier(task)).toBe(file);
    const module = (await import(file!)) as { default: { conventions: { artefact: { rate: number } } } };
    // The fixture's artefact rate is 12% (2.8 = 10 x 0.25 x 1.12 in HAND.artefact).
    expect(module.default.conventions.artefact.rate).toBe(0.12);
  });

  it("gives the worker the same verdicts as verifying in this thread", async () => {
    const project = markupProject();
    const task = project.load();
    const root = project.paths.root;
    for (const values of [HAND.artefact, HAND.default]) {
      const outputs = markupOutputs(values);
      const inWorker = await verifyKillable(root, task, outputs, 60_000);
      expect(inWorker).toEqual(await verifyTrial(task, outputs));
    }
    // The control: the artefact's answer passes, the default convention's fails.
    expect((await verifyKillable(root, task, markupOutputs(HAND.artefact), 60_000)).status).toBe("pass");
    expect((await verifyKillable(root, task, markupOutputs(HAND.default), 60_000)).status).toBe("fail");
  });

  it("leaves a verifier that cannot be bundled to the worker's own import, which names the file", async () => {
    const project = markupProject({ verifier: () => "export default {;\n" });
    const task = project.load();
    expect(await compiledVerifier(task)).toBeUndefined();
    const outcome = await verifyKillable(
      project.paths.root,
      task,
      markupOutputs(HAND.artefact),
      60_000,
    ).catch((err: unknown) => err);
    const message = outcome instanceof VerifierRunError ? outcome.message : JSON.stringify(outcome);
    expect(message).toContain("verifiers/markup.ts");
  });
});
