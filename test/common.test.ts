// The shared helpers of src/common: the bootstrap's nearest-rank bounds and its dropping of undefined
// resamples, and the JSON-lines store on a file of any schema (a torn line closed off, bad lines by number).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appendJsonLine, bootstrap, readJsonLines } from "../src/common/index.ts";
import { tempDir } from "./support/project.ts";

describe("bootstrap", () => {
  it("takes nearest-rank quantiles of the defined statistics", () => {
    // Statistics 10, null, 9, null, ..., 1 (20 resamples): the nulls are left out, 10 values remain.
    // level 0.5: q = 0.25 and 0.75; nearest rank = the ceil(q * 10)-th smallest: 3rd (2.5 up) and 8th (7.5 up).
    const draws = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1].flatMap((v) => [v, null]);
    let next = 0;
    expect(bootstrap(() => draws[next++]!, draws.length, 0.5)).toEqual({ lo: 3, hi: 8 });
    expect(bootstrap(() => null, 5, 0.95)).toBeNull();
  });
});

describe("the JSON-lines store", () => {
  const Line = z.object({ id: z.number() });

  it("closes off a torn last line before appending, and reads each bad line by number", () => {
    const file = path.join(tempDir("kgate-jsonl-"), "x.jsonl");
    expect(readJsonLines(file, Line, "x line")).toEqual({ records: [], problems: [] });
    // a dead writer left line 3 half written
    writeFileSync(file, '{"id":1}\n{"id":"two"}\n{"id":');
    appendJsonLine(file, { id: 4 });
    expect(readFileSync(file, "utf8")).toBe('{"id":1}\n{"id":"two"}\n{"id":\n{"id":4}\n');
    const read = readJsonLines(file, Line, "x line");
    expect(read.records).toEqual([{ id: 1 }, { id: 4 }]);
    expect(read.problems).toEqual([
      { file, line: 2, message: expect.stringMatching(/^not a valid x line: id: /) },
      { file, line: 3, message: expect.stringMatching(/^invalid JSON: /) },
    ]);
    // still torn at the end of the file: said so
    writeFileSync(file, '{"id":1}\n{"id":');
    expect(readJsonLines(file, Line, "x line").problems[0]!.message).toMatch(/incomplete last line/);
  });
});
