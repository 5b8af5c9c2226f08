// Hostile outputs at the verifier (red-team items 5 and 10): a JSON answer nested 6,000 levels deep
// and a 1 MiB CSV header are failed verdicts of the agent (`format`), never `unverified`, in bounded time.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TrialRecord } from "../src/record/index.ts";
import { verifyTrial } from "../src/verify/index.ts";
import { MAX_JSON_DEPTH, tooDeep } from "../src/verify/parse.ts";
import { kgate } from "./support/cli.ts";
import { WIDE_CSV_SHA256, wideCsvHeader } from "./support/redteam.ts";
import { markupProject } from "./support/verify-fixture.ts";

const deep = (n: number) => Buffer.from(`{"total":0,"lines":[],"notes":${"[".repeat(n)}${"]".repeat(n)}}`);

describe("tooDeep", () => {
  it("finds the first pointer at the limit without recursion", () => {
    // {"a":[[1]]}: the object is depth 0, the outer array 1, the inner array 2.
    expect(tooDeep({ a: [[1]] }, 3)).toBeNull();
    expect(tooDeep({ a: [[1]] }, 2)).toBe("/a/0");
    // 100,000 nested arrays: a recursive walk would overflow the stack; this one returns.
    expect(tooDeep(JSON.parse(deep(100_000).toString()), MAX_JSON_DEPTH)).toMatch(/^\/notes(\/0)+$/);
  });
});

describe("verifier on hostile outputs", () => {
  it("a wrong JSON answer nested 6,000 levels deep is a failed verdict (format)", async () => {
    const task = markupProject().load();
    const verdict = await verifyTrial(task, [
      { path: "output/summary.json", status: "collected", bytes: deep(6000) },
    ]);
    expect(verdict).toMatchObject({ status: "fail", attribution: "format" });
    expect(verdict.reason).toContain(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it("a 1 MiB header of 219,312 columns is a failed verdict with a short reason, in linear time", async () => {
    const task = markupProject().load();
    // The red team's wide.csv, generated: the same bytes (its SHA-256), 1,048,572 of them.
    const bytes = wideCsvHeader();
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(WIDE_CSV_SHA256);
    // 219,312 names and 219,311 commas: 36 of one digit, 36*35 = 1,260 of two, 36^2*35 = 45,360
    // of three, the remaining 219,312 - 46,656 = 172,656 of four; (36 + 2,520 + 136,080 +
    // 690,624) + 219,311 commas + 1 newline = 1,048,572.
    expect(bytes.length).toBe(1_048_572);
    // The red team measured 95 s for the quadratic check; the test's 5 s timeout fails it.
    const verdict = await verifyTrial(task, [{ path: "output/result.csv", status: "collected", bytes }]);
    expect(verdict).toMatchObject({ status: "fail", attribution: "format" });
    expect(verdict.reason).toMatch(/the columns are .*\(\d+ columns\)/);
    expect(verdict.reason!.length).toBeLessThan(5000);
  });

  it("`kgate run` records the deep answer as the agent's failed trial, not an excluded one", () => {
    const { paths } = markupProject();
    writeFileSync(
      path.join(paths.tasks, "markup", "solution", "solve.sh"),
      `#!/usr/bin/env bash\nmkdir -p output\nprintf '%s' '${deep(6000).toString()}' > output/summary.json\n`,
    );
    const result = kgate(["--root", paths.root, "run", "markup", "--agent", "oracle", "--json"]);
    // A failed trial is a result, not a tool error: `kgate run` exits 0.
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { records: TrialRecord[] };
    expect(out.records).toHaveLength(1);
    const record = out.records[0]!;
    expect(record.error).toBeNull();
    expect(record.verdict).toMatchObject({ status: "fail", attribution: "format" });
    expect(record.verdict.reason).toContain("nested deeper than");
  }, 180_000);
});
