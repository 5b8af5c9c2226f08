// One split's rows as a file: verl's Parquet (<split>.parquet: data_source, prompt as a list of
// {role, content}, ability, reward_model {style, ground_truth}, extra_info as a struct), or JSON
// lines (<split>.jsonl) with the same fields. The export canaries go into the file's metadata
// (Parquet) and every row's extra_info.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { canaryLine, PUBLICATION_WARNING } from "../canary.ts";
import { type ParquetField, writeParquet } from "../parquet.ts";
import type { VerlRow } from "./rows.ts";

const STRING = "STRING" as const;

const VERL_FIELDS: ParquetField[] = [
  { name: "data_source", type: STRING },
  {
    name: "prompt",
    list: [
      { name: "role", type: STRING },
      { name: "content", type: STRING },
    ],
  },
  { name: "ability", type: STRING },
  {
    name: "reward_model",
    struct: [
      { name: "style", type: STRING },
      { name: "ground_truth", type: STRING },
    ],
  },
  {
    name: "extra_info",
    struct: [
      { name: "split", type: STRING },
      { name: "index", type: "INT64" },
      ...["task", "condition"].map((name) => ({ name, type: STRING })),
      { name: "variant", type: STRING, optional: true },
      ...["reference", "scorer", "reward"].map((name) => ({ name, type: STRING })),
      { name: "decision", type: STRING, optional: true },
      ...["canary", "kgate_version"].map((name) => ({ name, type: STRING })),
    ],
  },
];

/** Writes `<split>.parquet` (verl) or `<split>.jsonl`; returns its path. */
export async function writeRowsFile(
  out: string,
  split: string,
  format: "verl" | "jsonl",
  rows: readonly VerlRow[],
  canaries: readonly string[],
): Promise<string> {
  if (format === "jsonl") {
    const file = path.join(out, `${split}.jsonl`);
    writeFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
    return file;
  }
  const file = path.join(out, `${split}.parquet`);
  await writeParquet(file, {
    fields: VERL_FIELDS,
    rows: rows as unknown as Record<string, unknown>[],
    metadata: { "kgate.canaries": canaries.map(canaryLine).join("\n"), "kgate.warning": PUBLICATION_WARNING },
  });
  return file;
}
