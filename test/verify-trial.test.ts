// verifyTrial on a real task: passing outputs, every kind of malformed output as a failed verdict,
// failure attribution on constructed outputs, keyed JSON, rubric text, capped diffs.
import { describe, expect, it } from "vitest";
import { Verdict, verifyTrial } from "../src/verify/index.ts";
import {
  collected,
  HAND,
  judgedSummarySource,
  markupOutputs,
  markupProject,
  markupVerifierSource,
  withOutput,
} from "./support/verify-fixture.ts";

const project = markupProject({ scope: "file" });
const task = project.load();

async function verdictOf(outputs: Parameters<typeof verifyTrial>[1]) {
  const verdict = await verifyTrial(task, outputs);
  expect(Verdict.safeParse(verdict).success).toBe(true);
  return verdict;
}

describe("verifyTrial: passing outputs", () => {
  it("passes the artefact's answer with reward 1 and one criterion per output or rubric item", async () => {
    const verdict = await verdictOf(markupOutputs(HAND.artefact));
    expect(verdict).toMatchObject({ status: "pass", reward: 1, score: 1, attribution: null });
    expect(verdict.criteria.map((c) => [c.name, c.passed])).toEqual([
      ["output/result.csv", true],
      ["output/summary.json", true],
      ["output/memo.md: states the total", true],
      ["output/memo.md: names every item", true],
    ]);
    expect(verdict.diff).toBeUndefined();
  });

  it("accepts any row order, any column order, CRLF and values within 1e-4", async () => {
    const csv = "value,item\r\n26.88005,gear\r\n2.79995,bolt\r\n6.72,nut\r\n";
    const verdict = await verdictOf(
      withOutput(markupOutputs(HAND.artefact), collected("output/result.csv", csv)),
    );
    expect(verdict.status).toBe("pass");
  });

  it("fails a value just outside 1e-4 and shows it in a diff", async () => {
    const csv = "item,value\nbolt,2.80011\nnut,6.72\ngear,26.88\n";
    const verdict = await verdictOf(
      withOutput(markupOutputs(HAND.artefact), collected("output/result.csv", csv)),
    );
    expect(verdict.status).toBe("fail");
    expect(verdict.score).toBe(0.75);
    expect(verdict.criteria[0]?.detail).toBe(
      "1 of 3 value(s) differ, in 1 row(s); first: item=bolt value: expected 2.8, got 2.80011",
    );
    expect(verdict.diff).toContain("-item=bolt: value=2.8\n+item=bolt: value=2.80011");
    expect(verdict.attribution).toBe("other");
  });
});

describe("verifyTrial: malformed outputs are failed verdicts attributed to format", () => {
  const base = markupOutputs(HAND.artefact);
  const cases: Array<
    [
      string,
      ReturnType<typeof collected> | { path: string; status: "missing" | "rejected"; reason?: string },
      RegExp,
    ]
  > = [
    [
      "a missing file",
      { path: "output/result.csv", status: "missing" },
      /^output\/result\.csv was not produced$/,
    ],
    [
      "a file the sandbox rejected",
      { path: "output/result.csv", status: "rejected", reason: "52428800 B is over the 1048576 B cap" },
      /^output\/result\.csv was rejected: 52428800 B is over the 1048576 B cap$/,
    ],
    ["an empty file", collected("output/result.csv", ""), /^output\/result\.csv is empty$/],
    ["a whitespace-only file", collected("output/result.csv", " \n\n"), /is empty$/],
    [
      "a 50 MB file",
      collected("output/result.csv", Buffer.alloc(50 * 1024 * 1024, 0x61)),
      /^output\/result\.csv is 52428800 B, over the declared maxBytes of 1048576 B$/,
    ],
    [
      "bytes that are not UTF-8",
      collected("output/result.csv", Buffer.from([0x69, 0x74, 0xff, 0xfe])),
      /not valid UTF-8/,
    ],
    [
      "wrong columns",
      collected("output/result.csv", "item,cost\nbolt,2.8\n"),
      /^output\/result\.csv line 1: the columns are item,cost; expected item,value \(missing: value; unexpected: cost\)$/,
    ],
    [
      "a NaN cell",
      collected("output/result.csv", "item,value\nbolt,2.8\nnut,NaN\ngear,26.88\n"),
      /^output\/result\.csv line 3: value: "NaN" is not a finite number$/,
    ],
    [
      "an empty number cell",
      collected("output/result.csv", "item,value\nbolt,\nnut,6.72\ngear,26.88\n"),
      /line 2: value: "" is not a finite number/,
    ],
    [
      "a duplicate key",
      collected("output/result.csv", "item,value\nbolt,2.8\nbolt,2.8\n"),
      /^output\/result\.csv line 3: duplicate key item=bolt$/,
    ],
    [
      "a ragged row",
      collected("output/result.csv", "item,value\nbolt,2.8,extra\n"),
      /line 2: 3 field\(s\), the header \(line 1\) has 2/,
    ],
    [
      "not JSON",
      collected("output/summary.json", "{ total: 36.4 }"),
      /^output\/summary\.json line 1, column 3: invalid JSON/,
    ],
    ["NaN in JSON", collected("output/summary.json", '{"total": NaN, "lines": []}'), /invalid JSON/],
    [
      "JSON against the schema",
      collected("output/summary.json", '{"total": "36.4", "lines": [{"item": "bolt"}]}'),
      /does not match the schema: total: expected number, got string; lines\[0\]\.value: required field missing/,
    ],
  ];

  for (const [what, output, reason] of cases) {
    it(`fails ${what} with a precise reason`, async () => {
      const verdict = await verdictOf(withOutput(base, output as ReturnType<typeof collected>));
      expect(verdict.status).toBe("fail");
      expect(verdict.attribution).toBe("format");
      expect(verdict.reason).toMatch(reason);
      expect(verdict.reward).toBe(0);
    });
  }

  it("treats an output absent from the list as missing and keeps scoring the others", async () => {
    const verdict = await verdictOf(base.filter((o) => o.path !== "output/memo.md"));
    expect(verdict.attribution).toBe("format");
    expect(verdict.criteria.map((c) => c.passed)).toEqual([true, true, false, false]);
    expect(verdict.criteria[2]?.detail).toBe("not evaluated: output/memo.md was not produced");
    expect(verdict.score).toBe(0.5);
  });
});

describe("verifyTrial: failure attribution on constructed outputs", () => {
  it("attributes an answer under the default conventions to default-convention", async () => {
    const verdict = await verdictOf(markupOutputs(HAND.default));
    expect(verdict).toMatchObject({ status: "fail", attribution: "default-convention" });
    expect(verdict.agreement).toEqual({ "default-convention": 1, "perturbed-convention:perturbed": 0 });
  });

  it("attributes an answer under the perturbed variant to that variant", async () => {
    const verdict = await verdictOf(markupOutputs(HAND.perturbed));
    expect(verdict.attribution).toBe("perturbed-convention:perturbed");
    expect(verdict.agreement?.["perturbed-convention:perturbed"]).toBe(1);
  });

  it("still attributes a mostly-default answer with one slip to default-convention", async () => {
    const verdict = await verdictOf(markupOutputs({ ...HAND.default, gear: 25 }));
    expect(verdict.attribution).toBe("default-convention");
    // 7 distinguishing values (3 csv cells; json total and 3 line values); gear is off in both files
    // (5 agree), and the memo's "states the total" fails against the artefact's 36.40 but passes
    // against the default's 32.50, which the memo states (1 of 1): (5 + 1) / (7 + 1).
    expect(verdict.agreement?.["default-convention"]).toBeCloseTo(6 / 8, 10);
  });

  it("attributes values that follow no convention set to other", async () => {
    const verdict = await verdictOf(markupOutputs({ bolt: 3, nut: 7, gear: 30, total: 40 }));
    expect(verdict.attribution).toBe("other");
    expect(verdict.agreement).toEqual({ "default-convention": 0, "perturbed-convention:perturbed": 0 });
  });

  it("attributes a correct table with a failing rubric criterion to other", async () => {
    const verdict = await verdictOf(markupOutputs(HAND.artefact, "bolt, nut and gear, total unknown\n"));
    expect(verdict.status).toBe("fail");
    expect(verdict.attribution).toBe("other");
    expect(verdict.reward).toBe(0);
    expect(verdict.score).toBe(0.75);
    expect(verdict.reason).toBe("1 of 4 criteria failed: output/memo.md: states the total");
  });

  it("gives format precedence over convention evidence", async () => {
    const outputs = withOutput(markupOutputs(HAND.default), collected("output/memo.md", ""));
    expect((await verdictOf(outputs)).attribution).toBe("format");
  });
});

describe("verifyTrial: a text deliverable judged by its rubric alone is attributed by its criteria", () => {
  // Only output/memo.md: no value to compare, the criteria are the evidence.
  const memoOnly = markupProject({
    scope: "file",
    spec: (spec) => {
      spec.outputs = (spec.outputs as Array<{ path: string }>).filter((o) => o.path === "output/memo.md");
    },
    verifier: (imp) =>
      markupVerifierSource(imp)
        .replace(/"output\/result\.csv": rows,\n/, "")
        .replace(/"output\/summary\.json": \{ total, lines: rows \},\n/, ""),
  }).load();
  const memo = (text: string) => verifyTrial(memoOnly, [collected("output/memo.md", text)]);

  it("a memo under the default conventions: default-convention (agreement 1)", async () => {
    // "states the total" fails against 36.40 and passes against the default 32.50: 1 of 1.
    const verdict = await memo("Items: bolt, nut, gear. Total 32.50.\n");
    expect(verdict).toMatchObject({ status: "fail", attribution: "default-convention" });
    expect(verdict.agreement).toEqual({ "default-convention": 1, "perturbed-convention:perturbed": 0 });
  });

  it("a memo under the perturbed variant: that variant", async () => {
    // 37.375 to two decimals is 37.38 (toFixed), the perturbed total.
    const verdict = await memo("Items: bolt, nut, gear. Total 37.38.\n");
    expect(verdict.attribution).toBe("perturbed-convention:perturbed");
  });

  it("a memo that follows no convention set: other", async () => {
    const verdict = await memo("Items: bolt, nut, gear. Total 99.00.\n");
    expect(verdict.attribution).toBe("other");
    expect(verdict.agreement).toEqual({ "default-convention": 0, "perturbed-convention:perturbed": 0 });
  });

  it("a missing memo: format", async () => {
    const verdict = await verifyTrial(memoOnly, [
      { path: "output/memo.md", status: "missing", reason: "was not produced" },
    ]);
    expect(verdict.attribution).toBe("format");
  });
});

describe("verifyTrial: diffs", () => {
  it("caps the diff of a large, entirely wrong output", async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => `extra-${i},${i}`).join("\n");
    const verdict = await verdictOf(
      withOutput(markupOutputs(HAND.artefact), collected("output/result.csv", `item,value\n${rows}\n`)),
    );
    expect(verdict.status).toBe("fail");
    expect(verdict.diff!.length).toBeLessThan(4200);
    expect(verdict.diff).toMatch(/more differing row\(s\) not shown/);
    expect(verdict.criteria[0]?.detail).toMatch(/^2003 of 2003 value\(s\) differ, in 2003 row\(s\)/);
  });

  it("keys JSON arrays as declared and shows keyed pointers in the diff", async () => {
    const json = JSON.stringify({
      total: 36.4,
      lines: [
        { item: "nut", value: 6.72 },
        { item: "gear", value: 26.9 },
        { item: "bolt", value: 2.8 },
      ],
    });
    const verdict = await verdictOf(
      withOutput(markupOutputs(HAND.artefact), collected("output/summary.json", json)),
    );
    expect(verdict.criteria[1]?.detail).toBe(
      "1 of 7 value(s) differ, in 1 row(s); first: /lines/[item=gear]/value: expected 26.88, got 26.9",
    );
  });
});

describe("verifyTrial: messages stay bounded", () => {
  it("clips a format reason and long strings whatever the agent wrote", async () => {
    const header = Array.from({ length: 5000 }, (_, i) => `column${i}`).join(",");
    const wide = await verdictOf(
      withOutput(markupOutputs(HAND.artefact), collected("output/result.csv", `${header}\n`)),
    );
    expect(wide.attribution).toBe("format");
    expect(wide.reason!.length).toBeLessThanOrEqual(500);
    expect(wide.reason).toMatch(/^output\/result\.csv line 1: the columns are column0,column1,.*…$/);
    const long = await verdictOf(
      withOutput(
        markupOutputs(HAND.artefact),
        collected("output/result.csv", `item,value\n${"x".repeat(10_000)},1\n`),
      ),
    );
    expect(long.criteria[0]!.detail!.length).toBeLessThan(400);
    expect(long.diff).toMatch(/\n\+item=x{194}…: value=1\n/);
  });
});

describe("verifyTrial: a weighted rubric that judges a json output alone", () => {
  const judged = markupProject({ scope: "file", verifier: judgedSummarySource }).load();
  const summary = (total: number, bolt = HAND.artefact.bolt) =>
    collected(
      "output/summary.json",
      JSON.stringify({
        total,
        lines: [
          { item: "bolt", value: bolt },
          { item: "nut", value: HAND.artefact.nut },
          { item: "gear", value: HAND.artefact.gear },
        ],
      }),
    );

  it("replaces the output's reference criterion by its rubric criteria, with their weights", async () => {
    const verdict = await verifyTrial(judged, markupOutputs(HAND.artefact));
    expect(verdict).toMatchObject({ status: "pass", reward: 1, score: 1 });
    expect(verdict.criteria.map((c) => [c.name, c.weight])).toEqual([
      ["output/result.csv", undefined],
      ["output/summary.json: total", 2],
      ["output/summary.json: lines", 1],
      ["output/memo.md: states the total", 1],
      ["output/memo.md: names every item", 1],
    ]);
  });

  it("a wrong total fails its weight-2 criterion: score (1 + 1 + 1 + 1) / 6, the diff still shown", async () => {
    // Weights: result.csv 1 (passes), total 2 (fails), lines 1, memo 1 + 1 (pass): 4 of 6.
    const verdict = await verifyTrial(judged, withOutput(markupOutputs(HAND.artefact), summary(99)));
    expect(verdict.reward).toBe(0);
    expect(verdict.score).toBeCloseTo(4 / 6, 12);
    expect(verdict.reason).toBe("1 of 5 criteria failed: output/summary.json: total");
    expect(verdict.diff).toMatch(/output\/summary\.json/);
    expect(verdict.diff).toMatch(/99/);
  });

  it("still attributes a failure from the output's values: the default answer is ignorance", async () => {
    const verdict = await verifyTrial(judged, markupOutputs(HAND.default));
    expect(verdict.attribution).toBe("default-convention");
    // Only the memo's "names every item" (weight 1) passes: 1 of 1 + 2 + 1 + 1 + 1 = 6.
    expect(verdict.score).toBeCloseTo(1 / 6, 12);
  });

  it("counts a malformed output against its rubric criteria only (no reference criterion)", async () => {
    const verdict = await verifyTrial(
      judged,
      withOutput(markupOutputs(HAND.artefact), collected("output/summary.json", "{")),
    );
    expect(verdict.attribution).toBe("format");
    expect(verdict.criteria.filter((c) => !c.passed).map((c) => [c.name, c.weight])).toEqual([
      ["output/summary.json: total", 2],
      ["output/summary.json: lines", 1],
    ]);
    // result.csv and the memo pass: (1 + 1 + 1) / 6.
    expect(verdict.score).toBeCloseTo(3 / 6, 12);
  });
});
