// kgate exam keeps an internal error as what it is (its type and stack) instead of a usage error
// (exit 2, no stack) that tells the user to fix an input which is not at fault (issue 41 item 4).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { run as exam } from "../src/commands/exam.ts";
import { UsageError } from "../src/errors.ts";
import { tempProject } from "./support/project.ts";

function project() {
  const paths = tempProject();
  mkdirSync(path.join(paths.root, "items"));
  const item = { id: "a", prompt: "Compute 17 + 25.", answer: 42, checker: "number" };
  writeFileSync(path.join(paths.root, "items", "p.jsonl"), `${JSON.stringify(item)}\n`);
  return { paths, stdout: new PassThrough(), stderr: new PassThrough() };
}

const OPTIONS = {
  agent: "frontier",
  budget: "1000",
  n: "1",
  exams: "1",
  scheme: "fixed",
  order: "random",
  prompt: "baseline",
  seed: "0",
  trials: "1",
  concurrency: 1,
  ping: false,
};

describe("kgate exam's errors", () => {
  it("an internal error (here a TypeError from a caller's malformed options) keeps its type and stack", async () => {
    // `n` must be a string; a number makes the plan's code throw a TypeError (text.split)
    for (const estimate of [false, true]) {
      const bad = { ...OPTIONS, n: 5 as unknown as string, estimate };
      const err = await exam(project(), "p", bad).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TypeError);
      expect(err).not.toBeInstanceOf(UsageError);
      expect((err as Error).stack).toMatch(/exam\.ts/);
    }
  });

  it("a user's input error is still a usage error naming the option", async () => {
    const err = await exam(project(), "p", { ...OPTIONS, scheme: "steep" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^--scheme: "steep" is not one of /);
  });
});
