// JSON and text comparison: keyed arrays (with wildcards), ordered arrays, empty containers, extra
// keys, bad keyed elements; a text output compared after normalisation, with a line diff.
import { describe, expect, it } from "vitest";
import { JsonOutput, TextOutput } from "../src/task/index.ts";
import { compareTables, parseActual, tableFromJson } from "../src/verify/index.ts";

const json = (compare: Record<string, unknown> = {}) =>
  JsonOutput.parse({ path: "out.json", format: "json", schema: { type: "object" }, compare });

function table(output: ReturnType<typeof json>, doc: unknown) {
  const built = tableFromJson(output, doc);
  if (!built.ok) throw new Error(built.reason);
  return built.value;
}

function differing(output: ReturnType<typeof json>, expected: unknown, actual: unknown) {
  const e = table(output, expected);
  const a = table(output, actual);
  const c = compareTables(e, a);
  return { count: c.differing, first: c.sample.map((id) => e.label(id)) };
}

describe("JSON comparison", () => {
  it("compares ordered arrays by position unless they are keyed", () => {
    const doc = {
      rows: [
        { id: "a", v: 1 },
        { id: "b", v: 2 },
      ],
    };
    const swapped = {
      rows: [
        { id: "b", v: 2 },
        { id: "a", v: 1 },
      ],
    };
    expect(differing(json(), doc, swapped).count).toBe(4);
    expect(differing(json({ keyedArrays: { "/rows": ["id"] } }), doc, swapped).count).toBe(0);
  });

  it("matches keyed arrays at wildcard pointers and names keyed leaves", () => {
    const output = json({ keyedArrays: { "/groups/*/items": ["sku"] } });
    const expected = {
      groups: [
        {
          items: [
            { sku: "x", n: 1 },
            { sku: "y", n: 2 },
          ],
        },
      ],
    };
    const actual = {
      groups: [
        {
          items: [
            { sku: "y", n: 2 },
            { sku: "x", n: 1.5 },
          ],
        },
      ],
    };
    expect(differing(output, expected, actual)).toEqual({ count: 1, first: ["/groups/0/items/[sku=x]/n"] });
  });

  it("treats an empty array or object as a value, and a key on one side only as a difference", () => {
    expect(differing(json(), { a: [] }, { a: [] }).count).toBe(0);
    expect(differing(json(), { a: [], b: 1 }, { b: 1 }).count).toBe(1);
    expect(differing(json(), { a: {} }, { a: [] }).count).toBe(1);
    expect(differing(json(), { a: 1 }, { a: 1, extra: true }).first).toEqual(["/extra"]);
  });

  it("applies tolerance and normalisation to every leaf", () => {
    const output = json({ normalise: ["trim", "lowercase"], tolerance: { abs: 0.01 } });
    expect(differing(output, { name: "Bolt", v: 1 }, { name: " BOLT ", v: 1.009 }).count).toBe(0);
    expect(differing(output, { name: "Bolt", v: 1 }, { name: "Bolt", v: 1.02 }).count).toBe(1);
  });

  it("rejects keyed elements that are not objects, lack the key, or repeat it", () => {
    const output = json({ keyedArrays: { "/rows": ["id"] } });
    expect(tableFromJson(output, { rows: [1] })).toEqual({
      ok: false,
      reason: "/rows/0: a keyed array element must be an object",
    });
    expect(tableFromJson(output, { rows: [{ v: 1 }] })).toEqual({
      ok: false,
      reason: '/rows/0: key field "id" is missing or not a plain value',
    });
    expect(tableFromJson(output, { rows: [{ id: "a" }, { id: "a" }] })).toEqual({
      ok: false,
      reason: "/rows/1: duplicate key id=a",
    });
  });
});

describe("text comparison", () => {
  const output = TextOutput.parse({
    path: "memo.md",
    format: "text",
    compare: { normalise: ["collapse-whitespace", "trim"] },
  });
  const parse = (text: string) => {
    const parsed = parseActual(
      output,
      { path: "memo.md", status: "collected", bytes: Buffer.from(text) },
      false,
    );
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.value.table!;
  };

  it("compares the whole text after the declared normalisation", () => {
    expect(compareTables(parse("Total:  12.00\n"), parse("  Total: 12.00")).differing).toBe(0);
    expect(compareTables(parse("Total: 12.00"), parse("Total: 12.01")).differing).toBe(1);
  });
});
