// The one cell writer of every CSV kgate writes for people and spreadsheets (Table 1, the
// monitoring battery's per-track results and its leaderboard): RFC 4180 quoting, and a text that
// starts like a formula (=, +, -, @, tab, carriage return) gets a leading apostrophe, so a
// spreadsheet shows it as text instead of evaluating it (CSV / formula injection). A plain number
// ("-3.50") stays a number.
import { csvField } from "../verify/index.ts";

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** One CSV cell: null is empty, numbers as they are, a formula-like text prefixed with `'`. */
export function spreadsheetCell(value: string | number | null): string {
  if (value === null) return "";
  const text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) {
    return csvField(`'${text}`);
  }
  return csvField(text);
}
