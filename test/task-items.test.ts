// Item pools: line-precise errors, and each checker on replies worked out by hand.
import { describe, expect, it } from "vitest";
import { checkItemAnswer, Item, ItemPoolError, lastNumber, parseItemPool } from "../src/task/index.ts";

describe("parseItemPool", () => {
  it("reads one item a line, skipping blank and comment lines, with defaults", () => {
    const items = parseItemPool(
      '// a pool\n{"id":"q1","prompt":"2+2?","answer":4,"checker":"number"}\n\n{"id":"q2","prompt":"Capital of France?","answer":"Paris"}\n',
      "p.jsonl",
    );
    expect(items.map((i) => i.id)).toEqual(["q1", "q2"]);
    expect(items[1]!.checker).toBe("exact");
    expect(items[0]!.tolerance).toBe(1e-4);
    expect(items[0]!.unsolvable).toBe(false);
  });

  it("names the file, line and field of a bad item", () => {
    const text = '{"id":"q1","prompt":"x","answer":"a"}\n{"id":"q2","prompt":"","answer":"a"}\n';
    expect(() => parseItemPool(text, "items/p.jsonl")).toThrowError(/items\/p\.jsonl:2 \(prompt\)/);
  });

  it("refuses a line that is not JSON, a duplicate id and an empty pool", () => {
    expect(() => parseItemPool("{nope", "f")).toThrowError(/f:1: not JSON/);
    const dup = '{"id":"q","prompt":"x","answer":"a"}\n{"id":"q","prompt":"y","answer":"b"}';
    expect(() => parseItemPool(dup, "f")).toThrowError(/f:2 \(id\): "q" is already the id of line 1/);
    expect(() => parseItemPool("\n", "f")).toThrowError(ItemPoolError);
  });

  it("refuses a choice answer outside its choices", () => {
    const bad = Item.safeParse({ id: "c", prompt: "p", answer: "E", checker: "choice", choices: ["A", "B"] });
    expect(bad.success).toBe(false);
  });
});

describe("checkItemAnswer", () => {
  const number = Item.parse({ id: "n", prompt: "p", answer: 12.5, checker: "number" });
  const exact = Item.parse({ id: "e", prompt: "p", answer: "Paris" });
  const choice = Item.parse({
    id: "c",
    prompt: "p",
    answer: "B",
    checker: "choice",
    choices: ["A", "B", "C", "D"],
  });

  it("number: the last number of the reply, within 1e-4", () => {
    expect(lastNumber("first 3, then 1,250.5")).toBe(1250.5);
    expect(checkItemAnswer(number, "so the total is 12.50004")).toBe(true);
    expect(checkItemAnswer(number, "12.5 or maybe 13")).toBe(false);
    expect(checkItemAnswer(number, "no idea")).toBe(false);
  });

  it("exact: after trimming, collapsing spaces, a final full stop and case", () => {
    expect(checkItemAnswer(exact, "  paris. ")).toBe(true);
    expect(checkItemAnswer(exact, "Paris, France")).toBe(false);
  });

  it("choice: exactly one option named, and it is the answer", () => {
    expect(checkItemAnswer(choice, "(B)")).toBe(true);
    expect(checkItemAnswer(choice, "Answer: B")).toBe(true);
    expect(checkItemAnswer(choice, "B or C")).toBe(false);
    expect(checkItemAnswer(choice, "C")).toBe(false);
  });

  it("an unsolvable item is never correct", () => {
    const u = Item.parse({ id: "u", prompt: "p", answer: "x", unsolvable: true });
    expect(checkItemAnswer(u, "x")).toBe(false);
  });
});
