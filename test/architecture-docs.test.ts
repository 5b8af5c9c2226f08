// docs/architecture.md's taxonomy table is the code's: every kind, its owner, retry and count.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FAILURE_KINDS } from "../src/record/index.ts";

describe("docs/architecture.md", () => {
  it("lists every failure kind exactly as FAILURE_KINDS declares it", () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, "..", "docs", "architecture.md"), "utf8");
    const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| (\w+) \| (yes|no) \| (yes|no)[^|]*\| (.+) \|$/gm)].map(
      (m) => [m[1], { owner: m[2], retried: m[3] === "yes", counted: m[4] === "yes", meaning: m[5] }],
    );
    expect(Object.fromEntries(rows)).toEqual(FAILURE_KINDS);
  });
});
