// kgate's one CSV reader (src/common/csv.ts, on csv-parse) through the verifier's parseCsv: RFC 4180
// quoting, CRLF/LF/CR, a BOM, blank lines, a bounded record, and errors that name the line.
import { describe, expect, it } from "vitest";
import { readCsv } from "../src/common/index.ts";
import { csvField, parseCsv } from "../src/verify/index.ts";

function ok(text: string) {
  const r = parseCsv(text);
  if (!r.ok) throw new Error(r.reason);
  return r.csv;
}

describe("parseCsv", () => {
  it("reads a header and records with LF or CRLF line ends and no final newline", () => {
    expect(ok("a,b\n1,2\n3,4\n")).toEqual({
      header: ["a", "b"],
      records: [
        ["1", "2"],
        ["3", "4"],
      ],
      lines: [2, 3],
    });
    expect(ok("a,b\r\n1,2\r\n3,4").records).toEqual([
      ["1", "2"],
      ["3", "4"],
    ]);
  });

  it("reads quoted fields with commas, doubled quotes and line breaks, counting lines", () => {
    const csv = ok('name,note\n"Smith, J","said ""hi"""\n"multi\nline",x\nlast,y\n');
    expect(csv.records).toEqual([
      ["Smith, J", 'said "hi"'],
      ["multi\nline", "x"],
      ["last", "y"],
    ]);
    expect(csv.lines).toEqual([2, 3, 5]);
  });

  it("keeps empty fields and skips blank lines", () => {
    expect(ok("a,b,c\n,,\n\n1,,3\n").records).toEqual([
      ["", "", ""],
      ["1", "", "3"],
    ]);
  });

  it("names the line of a record with the wrong number of fields", () => {
    expect(parseCsv("a,b\n1,2\n3\n")).toEqual({
      ok: false,
      reason: "line 3: 1 field(s), the header (line 1) has 2",
    });
  });

  it("names the line of an unterminated quote or text after a closing quote", () => {
    expect(parseCsv('a,b\n1,"open\n')).toEqual({ ok: false, reason: "line 2: quoted field is never closed" });
    expect(parseCsv('a,b\n1,"x"y\n')).toEqual({
      ok: false,
      reason: "line 2: unexpected text after a closing quote",
    });
  });

  it("refuses text without a header", () => {
    expect(parseCsv("\n\n")).toEqual({ ok: false, reason: "no header line" });
  });

  it("round-trips fields through csvField", () => {
    const values = ["plain", "with,comma", 'quote"d', "line\nbreak", " padded "];
    const text = `${values.map(csvField).join(",")}\n`;
    expect(ok(`${values.map((_, i) => `c${i}`).join(",")}\n${text}`).records[0]).toEqual(values);
  });

  it("drops a leading byte-order mark (a spreadsheet's UTF-8 export) and reads CR-only line ends", () => {
    expect(ok("\uFEFFitem,qty\r\nA,1\r\n").header).toEqual(["item", "qty"]);
    // Classic Mac line ends: three records on lines 1, 2, 3.
    expect(ok("a,b\r1,2\r3,4\r")).toEqual({
      header: ["a", "b"],
      records: [
        ["1", "2"],
        ["3", "4"],
      ],
      lines: [2, 3],
    });
  });

  it("counts a CRLF inside a quoted field as one line, and blank lines before a record", () => {
    // Header line 1; the quoted field spans lines 2-3; lines 4 and 5 blank; the last record on line 6.
    const csv = ok('a,b\r\n"x\r\ny",2\r\n\r\n\r\n3,4\r\n');
    expect(csv.records).toEqual([
      ["x\r\ny", "2"],
      ["3", "4"],
    ]);
    expect(csv.lines).toEqual([2, 6]);
    // The same blank lines before a broken record: it is named on line 6 too.
    expect(parseCsv('a,b\r\n"x\r\ny",2\r\n\r\n\r\n3,"4\r\n')).toEqual({
      ok: false,
      reason: "line 6: quoted field is never closed",
    });
  });

  it("says how to quote a field holding a quote", () => {
    const r = parseCsv('item,size\npipe,5" long\n');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/^line 2: a quote inside an unquoted field \(quote the whole field/);
  });

  it("bounds a record: a quote never closed stops at the limit, not at the end of the text", () => {
    const limit = 1000;
    const visitor = { header: () => undefined, record: () => undefined };
    // Line 1 header, line 2 a short record, line 3 opens a quote followed by 5000 characters.
    const open = `a,b\n1,2\n3,"${"x".repeat(5000)}\n4,5\n`;
    expect(readCsv(open, visitor, { maxRecordSize: limit })).toEqual({
      line: 3,
      message: "a record over 1000 characters (a quoted field never closed, or a field too large)",
    });
    // A closed field of 2 x the limit is refused as well; one of half the limit is read.
    expect(readCsv(`a\n"${"y".repeat(2 * limit)}"\n`, visitor, { maxRecordSize: limit })?.line).toBe(2);
    expect(readCsv(`a\n"${"y".repeat(limit / 2)}"\n`, visitor, { maxRecordSize: limit })).toBeUndefined();
  });

  it("hands a ragged record to the visitor's ragged method and goes on reading", () => {
    const seen: string[] = [];
    const problem = readCsv("a,b\n1\n2,3\n4,5,6\n", {
      header: () => undefined,
      record: (fields, line) => void seen.push(`${line}:${fields.join("|")}`),
      ragged: (fields, line, width) => void seen.push(`ragged ${line}: ${fields.length}/${width}`),
    });
    expect(problem).toBeUndefined();
    expect(seen).toEqual(["ragged 2: 1/2", "3:2|3", "ragged 4: 3/2"]);
  });
});
