// pass@k and pass^k: the unbiased estimators against values worked out by hand, their
// unbiasedness, the pooled aggregate rows, and the summary JSON, Markdown and HTML that show them
// beside the Wilson interval (the CSV's columns are checked in report-exports.test.ts).
import { describe, expect, it } from "vitest";
import { passAtK, passHatK, passKCurve, pooledPassK } from "../src/calibrate/index.ts";
import { projectPaths } from "../src/project.ts";
import { htmlReport, markdownReport, RunSummary } from "../src/report/index.ts";
import { paperRun as makePaperRun, type PaperRun } from "./support/paper-run.ts";
import { tempDir } from "./support/project.ts";

describe("pass@k and pass^k of one cell", () => {
  it.each([
    // n = 5, c = 3. C(5,2) = 10, C(5,3) = 10, C(5,4) = 5.
    // pass@1 = 1 - C(2,1)/C(5,1) = 1 - 2/5 = 0.6; pass@2 = 1 - C(2,2)/C(5,2) = 1 - 1/10 = 0.9;
    // pass@3 = 1 - C(2,3)/C(5,3) = 1 - 0 = 1 (any 3 of 5 include a pass: only 2 fail).
    // pass^1 = 3/5; pass^2 = C(3,2)/C(5,2) = 3/10; pass^3 = C(3,3)/C(5,3) = 1/10; pass^4 = 0/5 = 0.
    [3, 5, 1, 0.6, 0.6],
    [3, 5, 2, 0.9, 0.3],
    [3, 5, 3, 1, 0.1],
    [3, 5, 4, 1, 0],
    // n = 10, c = 8. C(10,2) = 45, C(8,2) = 28, C(10,5) = 252, C(8,5) = 56.
    // pass@2 = 1 - C(2,2)/45 = 44/45; pass^2 = 28/45; pass^5 = 56/252 = 2/9; pass@5 = 1 - 0 = 1.
    [8, 10, 2, 44 / 45, 28 / 45],
    [8, 10, 5, 1, 2 / 9],
    // n = 4, c = 1: pass@2 = 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5; pass^2 = C(1,2)/6 = 0.
    [1, 4, 2, 0.5, 0],
    // n = 4, c = 1, k = n: pass@4 = 1 - C(3,4)/C(4,4) = 1 (the one pass is among all 4).
    [1, 4, 4, 1, 0],
    // Every trial passed or none did: both estimators are 1 or 0 at every k.
    [5, 5, 5, 1, 1],
    [0, 5, 3, 0, 0],
  ])("%i passes of %i, k = %i: pass@k %f, pass^k %f", (c, n, k, at, hat) => {
    expect(passAtK(c, n, k)).toBeCloseTo(at, 12);
    expect(passHatK(c, n, k)).toBeCloseTo(hat, 12);
  });

  it("matches exact binomial coefficients at n = 75 (the paper's pooled frontier +A, 51 passes)", () => {
    // Computed here with BigInt binomials, independently of the code's running product.
    const choose = (n: number, k: number): bigint => {
      if (k < 0 || k > n) return 0n;
      let r = 1n;
      for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
      return r;
    };
    const ratio = (a: bigint, b: bigint) => Number((a * 10n ** 18n) / b) / 1e18;
    for (const k of [1, 10, 25, 51, 60, 75]) {
      expect(passAtK(51, 75, k)).toBeCloseTo(1 - ratio(choose(24, k), choose(75, k)), 12);
      expect(passHatK(51, 75, k)).toBeCloseTo(ratio(choose(51, k), choose(75, k)), 12);
    }
  });

  it("is unbiased: its mean over Binomial(n, p) outcomes is 1 - (1 - p)^k and p^k", () => {
    // E[estimate] = sum over c of C(n,c) p^c (1-p)^(n-c) * estimate(c): exact, no sampling.
    const n = 7;
    const p = 0.35;
    const binom = (c: number) => {
      let coefficient = 1;
      for (let i = 1; i <= c; i++) coefficient = (coefficient * (n - c + i)) / i;
      return coefficient * p ** c * (1 - p) ** (n - c);
    };
    for (let k = 1; k <= n; k++) {
      let at = 0;
      let hat = 0;
      for (let c = 0; c <= n; c++) {
        at += binom(c) * passAtK(c, n, k);
        hat += binom(c) * passHatK(c, n, k);
      }
      expect(at).toBeCloseTo(1 - (1 - p) ** k, 12);
      expect(hat).toBeCloseTo(p ** k, 12);
    }
  });

  it("runs k from 1 to n, and has no value without a valid trial", () => {
    expect(passKCurve(2, 3).map((p) => p.k)).toEqual([1, 2, 3]);
    // pass@3 of 2/3 = 1; pass^3 = C(2,3)/C(3,3) = 0.
    expect(passKCurve(2, 3)[2]).toEqual({ k: 3, passAt: 1, passHat: 0 });
    expect(passKCurve(0, 0)).toEqual([]);
  });

  it("refuses k outside 1..n and passes outside 0..n", () => {
    expect(() => passAtK(3, 5, 0)).toThrow(RangeError);
    expect(() => passAtK(3, 5, 6)).toThrow(/1 <= k <= runs/);
    expect(() => passHatK(6, 5, 1)).toThrow(RangeError);
    expect(() => passHatK(1.5, 5, 1)).toThrow(RangeError);
  });
});

describe("pooled over cells", () => {
  it("averages each k over the cells with k or more valid trials", () => {
    const pooled = pooledPassK([passKCurve(3, 5), passKCurve(5, 5), passKCurve(0, 3)]);
    expect(pooled.map((p) => p.cells)).toEqual([3, 3, 3, 2, 2]);
    // k = 1: (3/5 + 5/5 + 0/3) / 3 = 1.6 / 3.
    expect(pooled[0]!.passAt).toBeCloseTo(1.6 / 3, 12);
    // k = 2: pass@2 = (0.9 + 1 + 0) / 3 = 1.9 / 3; pass^2 = (0.3 + 1 + 0) / 3 = 1.3 / 3.
    expect(pooled[1]!.passAt).toBeCloseTo(1.9 / 3, 12);
    expect(pooled[1]!.passHat).toBeCloseTo(1.3 / 3, 12);
    // k = 4: only the two 5-trial cells: pass@4 = (1 + 1) / 2; pass^4 = (0 + 1) / 2.
    expect(pooled[3]).toMatchObject({ passAt: 1, passHat: 0.5, cells: 2 });
    expect(pooledPassK([])).toEqual([]);
  });
});

describe("in the reports", () => {
  let made: PaperRun | undefined;
  /** One constructed run for the section (removed after the file): every test only reads it. */
  const paperRun = () => {
    made ??= makePaperRun(projectPaths(tempDir("kgate-passk-", "file")));
    return made;
  };

  it("the summary JSON carries each cell's curve and each aggregate's mean", () => {
    const { summary } = paperRun();
    const parsed = RunSummary.parse(JSON.parse(JSON.stringify(summary)));
    // t07 frontier+A PPPDD: 3/5, the first table's values.
    const t07 = parsed.cells.find((c) => c.task === "t07" && c.spec === "frontier+A")!;
    expect(t07.passK.map((p) => p.k)).toEqual([1, 2, 3, 4, 5]);
    expect(t07.passK[1]!.passAt).toBeCloseTo(0.9, 12);
    expect(t07.passK[2]!.passHat).toBeCloseTo(0.1, 12);
    // frontier+A over all 15 tasks: 6 at 5/5, 7 at 3/5, 2 at 0/5.
    // pass@2 = (6 x 1 + 7 x 0.9 + 2 x 0) / 15 = 12.3 / 15 = 0.82;
    // pass^2 = (6 x 1 + 7 x 0.3 + 0) / 15 = 8.1 / 15 = 0.54.
    const all = parsed.aggregates.find((a) => a.spec === "frontier+A" && a.scope === "all")!;
    expect(all.passK[1]).toMatchObject({ k: 2, cells: 15 });
    expect(all.passK[1]!.passAt).toBeCloseTo(0.82, 12);
    expect(all.passK[1]!.passHat).toBeCloseTo(0.54, 12);
  });

  it("an older summary without pass@k still parses, with none", () => {
    const { summary } = paperRun();
    const old = JSON.parse(JSON.stringify(summary));
    for (const c of old.cells) delete c.passK;
    for (const a of old.aggregates) delete a.passK;
    const parsed = RunSummary.parse(old);
    expect(parsed.cells[0]!.passK).toEqual([]);
    expect(markdownReport(parsed)).not.toContain("## pass@k and pass^k");
  });

  it("the Markdown shows both rows of a cell beside its tally and Wilson interval", () => {
    const md = markdownReport(paperRun().summary);
    expect(md).toContain("## pass@k and pass^k");
    expect(md).toContain(
      "| task | cell | passes/runs (rate) [Wilson 95%] | measure | k=1 | k=2 | k=3 | k=4 | k=5 |",
    );
    // Wilson 95% of 3/5: [23, 88] (calibrate-stats.test.ts: 0.230724, 0.882379).
    expect(md).toContain(
      "| t07 | frontier+A | 3/5 (60%) [23, 88] | pass@k | 0.60 | 0.90 | 1.00 | 1.00 | 1.00 |",
    );
    expect(md).toContain(
      "| t07 | frontier+A | 3/5 (60%) [23, 88] | pass^k | 0.60 | 0.30 | 0.10 | 0.00 | 0.00 |",
    );
    expect(md).toMatch(
      /\| \*\*all \(15 tasks, pooled trials\)\*\* \| frontier\+A \| 51\/75 \(68\.0%\) \[56\.8, 77\.5\] \| pass\^k \| 0\.68 \| 0\.54 \|/,
    );
  });

  it("the HTML carries each value with its k and measure", () => {
    const html = htmlReport(paperRun().summary);
    expect(html).toContain('<table id="passk">');
    const row = html.match(
      /<tr data-task="t07" data-cell="frontier\+A" data-measure="pass\^k">.*?<\/tr>/,
    )?.[0];
    expect(row).toContain('<td class="tally">3/5 (60%) [23, 88]</td>');
    expect(row).toMatch(/data-k="2" data-value="0\.3\d*">0\.30</);
    expect(row).toContain('<td class="num" data-k="5" data-value="0">0.00</td>');
  });
});
