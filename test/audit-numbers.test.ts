// Numeric literals and spelled-out numbers: exact values, units, precision, and what is not a number.
import { describe, expect, it } from "vitest";
import { readNumberWords } from "../src/audit/number-words.ts";
import { type NumberLiteral, scanNumbers } from "../src/audit/numbers.ts";

function numbers(text: string, delimiter?: string): Array<Partial<NumberLiteral> & { text: string }> {
  const out: Array<Partial<NumberLiteral> & { text: string }> = [];
  scanNumbers(text, (lit) => out.push({ ...lit, text: text.slice(lit.start, lit.end) }), { delimiter });
  return out;
}

function words(text: string): Array<{ value: number; unit: string; text: string }> {
  const out: Array<{ value: number; unit: string; text: string }> = [];
  readNumberWords(text, (lit) =>
    out.push({ value: lit.value, unit: lit.unit, text: text.slice(lit.start, lit.end) }),
  );
  return out;
}

describe("scanNumbers", () => {
  it.each([
    ["0.12", 0.12, "none"],
    ["12%", 0.12, "percent"],
    ["12.0 %", 0.12, "percent"],
    ["12 percent", 0.12, "percent"],
    ["12 per cent", 0.12, "percent"],
    ["12pct", 0.12, "percent"],
    ["1,200 bp", 0.12, "bp"],
    ["1200 basis points", 0.12, "bp"],
    ["3/25", 0.12, "fraction"],
    ["1/235", 1 / 235, "fraction"],
    ["2.35e2", 235, "none"],
    ["-1.00", -1, "none"],
    ["+7", 7, "none"],
    ["1_000", 1000, "none"],
    [".5", 0.5, "none"],
  ])("reads %s as %d (%s)", (text, value, unit) => {
    const [lit] = numbers(`x ${text} y`);
    expect(lit?.value).toBeCloseTo(value, 12);
    expect(lit?.unit).toBe(unit);
    expect(lit?.text).toBe(text);
  });

  it("records precision: half a unit of the last digit and significant digits", () => {
    const [a, b, c] = numbers("0.004255 1.40 12.5%");
    expect(a).toMatchObject({ sig: 4 });
    expect(a!.halfUnit).toBeCloseTo(0.0000005, 12);
    expect(b).toMatchObject({ sig: 3 });
    expect(c!.halfUnit).toBeCloseTo(0.0005, 12);
  });

  it("marks scientific notation and multiplier signs", () => {
    const [sci, x, prefix] = numbers("2.35e2 then 1.12x and x1.12");
    expect(sci?.sci).toBe(true);
    expect(x).toMatchObject({ value: 1.12, times: true, text: "1.12x" });
    expect(prefix).toMatchObject({ value: 1.12, times: true });
  });

  it("does not read identifiers, versions, dates or ordinals as numbers", () => {
    expect(numbers("A12 v2 12px 3rd SKU12").map((n) => n.text)).toEqual([]);
    expect(numbers("version 1.12.3").map((n) => n.text)).toEqual([]);
    expect(numbers("dated 3/25/2024").map((n) => n.text)).toEqual([]);
  });

  it("does not read ISO dates, months or clock times as numbers", () => {
    for (const text of [
      "2024-01-15",
      "month 2026-04,",
      "at 06:03",
      "20:00:00.250",
      "2026-03-06T06:03",
      "2026-03-06 12:30",
    ])
      expect(
        numbers(text).map((n) => n.text),
        text,
      ).toEqual([]);
    expect(numbers("2024-01-15 x 12").map((n) => n.value)).toEqual([12]);
    // Look-alikes of dates and times stay numbers: a span of years, a ratio, a negative number.
    expect(numbers("2024-2025").map((n) => n.value)).toEqual([2024, 2025]);
    expect(numbers("a 3:1 ratio").map((n) => n.value)).toEqual([3, 1]);
    expect(numbers("x -12").map((n) => n.value)).toEqual([-12]);
  });

  it("treats a table's delimiter as a boundary, except inside quotes", () => {
    expect(numbers("a,1,200\n", ",").map((n) => n.value)).toEqual([1, 200]);
    expect(numbers('a,"1,200 bp"\n', ",").map((n) => n.value)).toEqual([0.12]);
    expect(numbers("total 1,200 units").map((n) => n.value)).toEqual([1200]);
    expect(numbers("1,2345").map((n) => n.value)).toEqual([1, 2345]);
  });
});

describe("readNumberWords", () => {
  it.each([
    ["twelve percent", 0.12, "percent"],
    ["two hundred thirty-five", 235, "none"],
    ["one hundred and twelve", 112, "none"],
    ["one point one two", 1.12, "none"],
    ["three thousand", 3000, "none"],
    ["twenty-five", 25, "none"],
  ])("reads %s as %d", (text, value, unit) => {
    const [n] = words(`we use ${text} here`);
    expect(n?.value).toBeCloseTo(value, 12);
    expect(n?.unit).toBe(unit);
  });

  it.each([
    ["thirty-eight euros fifty", 38.5, "thirty-eight euros fifty"],
    ["thirty-eight euros and fifty cents", 38.5, "thirty-eight euros and fifty"],
    ["twelve dollars and five cents", 12.05, "twelve dollars and five"],
    ["one hundred twenty pounds ninety-nine", 120.99, "one hundred twenty pounds ninety-nine"],
  ])("reads the amount %s as %d (its hundredths after the currency word)", (text, value, span) => {
    const found = words(`pay ${text} now`);
    expect(found.map((n) => [n.value, n.text])).toEqual([[value, span]]);
  });

  it("reads a currency word without hundredths, or a number after it that cannot be hundredths, apart", () => {
    expect(words("forty euros each").map((n) => n.value)).toEqual([40]);
    // "five euros, two items": the comma ends the amount.
    expect(words("five euros, two items").map((n) => n.value)).toEqual([5, 2]);
  });

  it("splits separate numbers and ignores lone scale words", () => {
    expect(words("twelve thirteen").map((n) => n.value)).toEqual([12, 13]);
    expect(words("a hundred people and one dog").map((n) => n.value)).toEqual([1]);
  });
});
