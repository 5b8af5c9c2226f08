// The leak audit's spreadsheet reader on workbooks made of the XML parts Excel writes: values,
// shared and inline strings, booleans, formulas, notes, and every cell's text as Excel displays it
// under its number format (built-in and custom; dates in both date systems, fractions, scientific,
// sections); and zips that are no workbook or are bombs, refused with the file named.
import { describe, expect, it } from "vitest";
import { xlsxDocument } from "../src/audit/extract-xlsx.ts";
import { type ZipEntry, zipBytes } from "./support/zip-write.ts";

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** A workbook of one sheet "Data" with `cells` (row XML), number formats and optional parts. */
function book(o: {
  rows: string;
  numFmts?: string;
  xfs: number[];
  strings?: string;
  date1904?: boolean;
  comments?: string;
}): Buffer {
  const entries: ZipEntry[] = [
    {
      name: "xl/workbook.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook ${NS} ${R}><workbookPr${o.date1904 ? ' date1904="1"' : ""}/><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    },
    {
      name: "xl/styles.xml",
      data: `<styleSheet ${NS}>${o.numFmts ? `<numFmts>${o.numFmts}</numFmts>` : ""}<cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs><cellXfs>${o.xfs.map((id) => `<xf numFmtId="${id}" applyNumberFormat="1"/>`).join("")}</cellXfs></styleSheet>`,
    },
    {
      name: "xl/worksheets/sheet1.xml",
      data: `<worksheet ${NS}><sheetData>${o.rows}</sheetData></worksheet>`,
    },
  ];
  if (o.strings) entries.push({ name: "xl/sharedStrings.xml", data: `<sst ${NS}>${o.strings}</sst>` });
  if (o.comments) {
    entries.push(
      {
        name: "xl/worksheets/_rels/sheet1.xml.rels",
        data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/comments" Target="../comments1.xml"/></Relationships>`,
      },
      {
        name: "xl/comments1.xml",
        data: `<comments ${NS}><authors><author>a</author></authors><commentList>${o.comments}</commentList></comments>`,
      },
    );
  }
  return zipBytes(entries);
}

/** Each entry's cell, part and text, read back through the document's locator. */
async function cells(bytes: Buffer): Promise<Array<[string | undefined, string | undefined, string]>> {
  const doc = await xlsxDocument("book.xlsx", bytes);
  const out: Array<[string | undefined, string | undefined, string]> = [];
  let offset = 0;
  for (const line of doc.text.split("\n")) {
    for (const field of line.split("\t")) {
      const at = doc.locate(offset, offset + field.length);
      out.push([at.cell, at.part, field]);
      offset += field.length + 1;
    }
  }
  return out;
}

describe("a workbook as Excel writes it", () => {
  it("reads strings, booleans, formulas and notes, one line per row", async () => {
    const bytes = book({
      xfs: [0],
      // A rich string of two runs with a phonetic reading (not shown in the cell), and a plain one.
      strings:
        '<si><r><t>over</t></r><r><t xml:space="preserve">head </t></r><rPh sb="0" eb="1"><t>オーバー</t></rPh></si><si><t>rate</t></si>',
      rows:
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
        '<row r="3"><c r="A3" t="inlineStr"><is><t>inline &amp; text</t></is></c><c r="B3" t="b"><v>1</v></c>' +
        '<c r="C3"><f>B3*2</f><v>2</v></c><c r="D3" t="e"><v>#DIV/0!</v></c></row>',
      comments: '<comment ref="A3" authorId="0"><text><r><t>cycle reported as -1.00</t></r></text></comment>',
    });
    expect(await cells(bytes)).toEqual([
      ["Data", "sheet name", "Data"],
      ["Data!A1", "value", "overhead "],
      ["Data!B1", "value", "rate"],
      ["Data!A3", "value", "inline & text"],
      ["Data!A3", "note", "cycle reported as -1.00"],
      ["Data!B3", "value", "TRUE"],
      ["Data!C3", "value", "2"],
      ["Data!C3", "formula", "=B3*2"],
      ["Data!D3", "value", "#DIV/0!"],
    ]);
  });

  it("shows each number as its format displays it: built-in ids and custom codes", async () => {
    const bytes = book({
      numFmts:
        '<numFmt numFmtId="164" formatCode="# ?/?"/><numFmt numFmtId="165" formatCode="0.00E+00"/>' +
        '<numFmt numFmtId="166" formatCode="#,##0.00;(#,##0.00)"/><numFmt numFmtId="167" formatCode="[$-409]d mmm yyyy"/>' +
        '<numFmt numFmtId="168" formatCode="0.0&quot; %pt&quot;"/>',
      // Style index -> numFmtId: 0 General, 1 id 14 (m/d/yyyy), 2 id 10 (0.00%), 3-7 custom, 8 id 3 (#,##0).
      xfs: [0, 14, 10, 164, 165, 166, 167, 168, 3],
      rows:
        '<row r="1"><c r="A1" s="1"><v>45000</v></c><c r="B1" s="2"><v>0.125</v></c><c r="C1" s="3"><v>0.75</v></c>' +
        '<c r="D1" s="4"><v>12345</v></c><c r="E1" s="5"><v>-1234.5</v></c><c r="F1" s="6"><v>45000</v></c>' +
        '<c r="G1" s="7"><v>12.34</v></c><c r="H1" s="8"><v>1234567</v></c><c r="I1"><v>0.1</v></c></row>',
    });
    const shown = (await cells(bytes))
      .filter(([, part]) => part === "formatted text")
      .map(([c, , t]) => [c, t]);
    expect(shown).toEqual([
      // Serial 45000 = 1899-12-30 + 45000 days: 44927 is 2023-01-01, +73 days (31 Jan + 28 Feb + 14) = 15 March.
      ["Data!A1", "3/15/2023"],
      ["Data!B1", "12.50%"],
      // 0.75 as a one-digit fraction: 3/4 (the integer part, 0, shows as a space).
      ["Data!C1", " 3/4"],
      // 12345 = 1.2345 x 10^4, two decimals.
      ["Data!D1", "1.23E+04"],
      // The second section formats negatives, without their minus sign.
      ["Data!E1", "(1,234.50)"],
      ["Data!F1", "15 Mar 2023"],
      ["Data!G1", "12.3 %pt"],
      ["Data!H1", "1,234,567"],
    ]);
  });

  it("counts dates from 1904 in a workbook that says so (serial + 1,462 days)", async () => {
    const bytes = book({
      date1904: true,
      xfs: [0, 14, 10],
      // 43538 + 1462 = 45000: 3/15/2023; a percent in the same workbook is no date and not shifted.
      rows: '<row r="1"><c r="A1" s="1"><v>43538</v></c><c r="B1" s="2"><v>0.5</v></c></row>',
    });
    const shown = (await cells(bytes)).filter(([, part]) => part === "formatted text").map(([, , t]) => t);
    expect(shown).toEqual(["3/15/2023", "50.00%"]);
  });
});

describe("what is no workbook", () => {
  it("refuses a file that is no zip, naming it", async () => {
    await expect(xlsxDocument("book.xlsx", Buffer.from("not a zip"))).rejects.toThrow(
      /^cannot read book\.xlsx as an xlsx workbook: /,
    );
  });

  it("refuses malformed XML, naming the part", async () => {
    const bytes = book({ xfs: [0], rows: '<row r="1"><c r="A1"><v>1</v></row>' });
    await expect(xlsxDocument("book.xlsx", bytes)).rejects.toThrow(
      /book\.xlsx: xl\/worksheets\/sheet1\.xml: /,
    );
  });

  it("refuses an entry that declares more than the cap, before inflating it", async () => {
    // 4 KiB of data that declares 3 GiB: refused by its header alone, under the default 64 MiB cap.
    const bytes = book({ xfs: [0], rows: "" });
    const bomb = zipBytes([
      { name: "xl/workbook.xml", data: "<workbook/>", declaredSize: 3 * 1024 ** 3 },
      { name: "xl/styles.xml", data: Buffer.alloc(4096) },
    ]);
    expect(bytes.length).toBeGreaterThan(0);
    await expect(xlsxDocument("bomb.xlsx", bomb)).rejects.toThrow(
      /cannot read bomb\.xlsx: xl\/workbook\.xml declares 3221225472 bytes, over the cap of 67108864 \(a zip bomb\?\)/,
    );
  });

  it("stops an entry that inflates past what it declares (the bomb that lies)", async () => {
    // 8 MiB of zeros deflate to a few KiB; the headers claim 100 bytes. Inflating stops at the lie.
    const sheet = `<worksheet ${NS}><sheetData>${" ".repeat(8 * 1024 * 1024)}</sheetData></worksheet>`;
    const honest = book({ xfs: [0], rows: "" });
    expect(honest.length).toBeLessThan(4096);
    const entries: ZipEntry[] = [
      {
        name: "xl/workbook.xml",
        data: `<workbook ${NS} ${R}><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      },
      {
        name: "xl/_rels/workbook.xml.rels",
        data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
      },
      { name: "xl/worksheets/sheet1.xml", data: sheet, declaredSize: 100 },
    ];
    const liar = zipBytes(entries);
    expect(liar.length).toBeLessThan(64 * 1024);
    await expect(xlsxDocument("liar.xlsx", liar)).rejects.toThrow(
      /cannot read liar\.xlsx: xl\/worksheets\/sheet1\.xml: /,
    );
  });

  it("keeps every workbook under the total cap across entries", async () => {
    // Three 1 KiB entries under a 1.5 KiB cap each and 2 KiB in all: the second sheet part crosses it.
    const bytes = book({ xfs: [0], rows: `<row r="1"><c r="A1"><v>${"1".repeat(900)}</v></c></row>` });
    await expect(xlsxDocument("big.xlsx", bytes, { entryBytes: 1536, totalBytes: 1024 })).rejects.toThrow(
      /cannot read big\.xlsx: the entries read declare over 1024 bytes together/,
    );
  });
});
