// The docs call kgate as the README does (issue 47 item 6): `kgate`, put on the PATH once, not `npx kgate`
// (npm's start-up costs about a second a call); a page whose command block a reader may arrive at cold
// points once to the README's PATH setup, the only place `npx kgate` is still named.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DOCS = path.resolve(import.meta.dirname, "..", "docs");
const POINTER = "../README.md#kgate-on-the-path-once";
const pages = readdirSync(DOCS)
  .filter((f) => f.endsWith(".md"))
  .map((f) => ({ file: f, text: readFileSync(path.join(DOCS, f), "utf8") }));

describe("docs/*.md call kgate as the README does", () => {
  it("no page says `npx kgate` except in its one pointer to the README's PATH setup", () => {
    const stray = pages.flatMap(({ file, text }) =>
      text
        .split("\n")
        .map((line, i) => ({ where: `${file}:${i + 1}`, line }))
        .filter(({ line }) => line.includes("npx kgate") && !line.includes(POINTER)),
    );
    expect(stray).toEqual([]);
  });

  it("a page whose shell block starts with a kgate command points to the README's PATH setup once", () => {
    const withCommands = pages.filter(({ text }) => text.includes("```sh\nkgate "));
    // agents, audit, authoring, calibrate, check, exam, export, monitoring, probes, triage, view at least
    expect(withCommands.length).toBeGreaterThanOrEqual(10);
    const pointers = withCommands.map(({ file, text }) => [file, text.split(POINTER).length - 1]);
    expect(pointers.filter(([, n]) => n !== 1)).toEqual([]);
  });
});
