// The CSV reader: RFC 4180 quoting, CRLF, blank lines, and errors that name the line.
import { describe, expect, it } from "vitest";
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
});
