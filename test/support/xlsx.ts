// Test support: small xlsx workbooks written through exceljs, a writer independent of the audit's own
// reader (src/audit/extract-xlsx.ts); a devDependency only.
import ExcelJS from "exceljs";

export type CellSpec =
  | string
  | number
  | { value?: string | number; numFmt?: string; formula?: string; result?: number };

export interface WorkbookSpec {
  sheets: Array<{ name: string; rows: CellSpec[][] }>;
}

export async function xlsxBytes(spec: WorkbookSpec): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const sheet of spec.sheets) {
    const ws = workbook.addWorksheet(sheet.name);
    sheet.rows.forEach((row, r) => {
      row.forEach((cell, c) => {
        const target = ws.getCell(r + 1, c + 1);
        if (typeof cell !== "object") {
          target.value = cell;
          return;
        }
        if (cell.formula) target.value = { formula: cell.formula, result: cell.result };
        else if (cell.value !== undefined) target.value = cell.value;
        if (cell.numFmt) target.numFmt = cell.numFmt;
      });
    });
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
