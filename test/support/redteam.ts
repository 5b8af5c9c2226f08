// Test support: the red team's reproductions that the hostile tests replay, from the repository's
// fixtures (test/fixtures/redteam) or generated here, so that no test reads outside the repository.
import { readFileSync } from "node:fs";
import path from "node:path";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/redteam");

/** The text of a copied reproduction: `crash.sh` or `steps-readroot.json`. */
export function redteamFixture(name: "crash.sh" | "steps-readroot.json"): string {
  return readFileSync(path.join(FIXTURES, name), "utf8");
}

/**
 * The red team's 1 MiB CSV header (tasks/rt-wide/solution/wide.csv): one line of the distinct
 * column names 0,1,...,z,10,... (the numbers 0 to 219,311 in base 36) and a newline.
 */
export function wideCsvHeader(): Buffer {
  return Buffer.from(`${Array.from({ length: 219_312 }, (_, i) => i.toString(36)).join(",")}\n`);
}

/** SHA-256 of the red team's wide.csv, to check that wideCsvHeader() makes the same bytes. */
export const WIDE_CSV_SHA256 = "b4f6027a5392c68ebbe58e5896f13fa9a1bc87ec03a66c7b9a5874944291baf5";
