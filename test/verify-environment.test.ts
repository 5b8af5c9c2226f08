// Helpers for verifier authors: environment files by name and CSV rows keyed by the header.
import { describe, expect, it } from "vitest";
import { environmentRows, environmentText } from "../src/verify/index.ts";

describe("environment helpers for verifiers", () => {
  it("reads CSV rows keyed by the header, quoted fields included", () => {
    const env = { "a.csv": 'id,name,amount\n1,"Smith, J",10.50\n2,Lee,3\n' };
    expect(environmentRows(env, "a.csv")).toEqual([
      { id: "1", name: "Smith, J", amount: "10.50" },
      { id: "2", name: "Lee", amount: "3" },
    ]);
  });

  it("names the file and the line of a row with the wrong number of fields", () => {
    const env = { "a.csv": "id,name\n1,Ann\n2,Bob,extra\n" };
    expect(() => environmentRows(env, "a.csv")).toThrow(/^a\.csv: line 3: 3 field\(s\), the header/);
  });

  it("names a missing file", () => {
    expect(() => environmentText({}, "gone.csv")).toThrow("environment file gone.csv is missing");
    expect(() => environmentRows({}, "gone.csv")).toThrow("environment file gone.csv is missing");
  });
});
