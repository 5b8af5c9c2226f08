// Digests: same content same digest, any byte change a different one, and +A = -A plus the artefact.
import { readFileSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conditionFileSet, fileSetDigest, loadValidTask, scaffoldTask, sha256 } from "../src/task/index.ts";
import { tempProject } from "./support/project.ts";

function demo() {
  const paths = tempProject();
  scaffoldTask(paths, { id: "demo", gate: "convention" });
  return { paths, load: () => loadValidTask(paths, "demo") };
}

describe("fileSetDigest", () => {
  it("equals sha256 of sha256sum-style lines, independent of order", () => {
    const a = { path: "a.txt", sha256: sha256("a") };
    const b = { path: "b/c.txt", sha256: sha256("c") };
    const expected = sha256(`${a.sha256}  a.txt\n${b.sha256}  b/c.txt\n`);
    expect(fileSetDigest([a, b])).toBe(expected);
    expect(fileSetDigest([b, a])).toBe(expected);
  });
});

describe("task digests", () => {
  it("are stable across loads and modification times", () => {
    const { paths, load } = demo();
    const first = load().digests;
    const envFile = path.join(paths.tasks, "demo", "environment", "input.csv");
    utimesSync(envFile, new Date(2000, 1, 1), new Date(2000, 1, 1));
    expect(load().digests).toEqual(first);
  });

  it("change when any byte of the instruction, environment, artefact or variant changes", () => {
    const { paths, load } = demo();
    const before = load().digests;
    const flip = (file: string) => {
      const bytes = readFileSync(file);
      bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1;
      writeFileSync(file, bytes);
    };
    flip(path.join(paths.tasks, "demo", "instruction.md"));
    const afterInstruction = load().digests;
    expect(afterInstruction.instruction).not.toBe(before.instruction);
    expect(afterInstruction.task).not.toBe(before.task);
    expect(afterInstruction.environment).toBe(before.environment);

    flip(path.join(paths.tasks, "demo", "environment", "input.csv"));
    expect(load().digests.environment).not.toBe(afterInstruction.environment);

    flip(path.join(paths.artefacts, "demo", "artefact.md"));
    const afterArtefact = load().digests;
    expect(afterArtefact.artefact).not.toBe(before.artefact);
    expect(afterArtefact.variants).toEqual(before.variants);

    flip(path.join(paths.artefacts, "demo", "variants", "perturbed.md"));
    expect(load().digests.variants.perturbed).not.toBe(before.variants.perturbed);
  });

  it("change when a file is renamed, even with the same bytes", () => {
    const { paths, load } = demo();
    const before = load().digests.environment;
    const dir = path.join(paths.tasks, "demo", "environment");
    writeFileSync(path.join(dir, "renamed.csv"), readFileSync(path.join(dir, "input.csv")));
    unlinkSync(path.join(dir, "input.csv"));
    expect(load().digests.environment).not.toBe(before);
  });
});

describe("conditionFileSet", () => {
  it("+A is the -A set plus exactly the artefact at its declared path", () => {
    const { load } = demo();
    const task = load();
    const without = conditionFileSet(task, "-A");
    const withA = conditionFileSet(task, "+A");
    expect(without.digest).toBe(task.digests.environment);
    expect(without.artefactDigest).toBeNull();
    const extra = withA.files.filter(
      (f) => !without.files.some((g) => g.path === f.path && g.sha256 === f.sha256),
    );
    expect(extra.map((f) => f.path)).toEqual([task.spec.artefact.path]);
    expect(withA.files.length).toBe(without.files.length + 1);
    expect(extra[0]!.read().equals(task.artefact.bytes)).toBe(true);
    expect(withA.artefactDigest).toBe(task.digests.artefact);
  });

  it("a variant replaces the artefact's bytes at the same path", () => {
    const { load } = demo();
    const task = load();
    const variant = conditionFileSet(task, "variant:perturbed");
    const placed = variant.files.find((f) => f.path === task.spec.artefact.path)!;
    expect(placed.sha256).toBe(task.digests.variants.perturbed);
    expect(variant.digest).not.toBe(conditionFileSet(task, "+A").digest);
    expect(() => conditionFileSet(task, "variant:nope")).toThrow(
      /no variant "nope" \(declared: perturbed, compressed\)/,
    );
  });
});
