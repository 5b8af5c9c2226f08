// Helpers for verifier authors: environment files by name, and CSV files as row objects, with
// errors that name the file and the line.
import type { EnvironmentFiles } from "./contract.ts";
import { parseCsv } from "./csv.ts";

export function environmentText(environment: EnvironmentFiles, name: string): string {
  const text = environment[name];
  if (text === undefined) throw new Error(`environment file ${name} is missing`);
  return text;
}

/** The records of a CSV file as objects keyed by its header (values as written); a row with another
 * number of fields than the header is an error naming the line. */
export function environmentRows(environment: EnvironmentFiles, name: string): Record<string, string>[] {
  const parsed = parseCsv(environmentText(environment, name));
  if (!parsed.ok) throw new Error(`${name}: ${parsed.reason}`);
  const { header, records } = parsed.csv;
  return records.map((fields) => Object.fromEntries(header.map((column, j) => [column, fields[j] ?? ""])));
}
