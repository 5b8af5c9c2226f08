// Parquet files of an export (verl's rows, the manifest) through hyparquet-writer, with an explicit
// schema: strings, 64-bit integers, doubles and booleans, structs, and lists of structs (Parquet's
// three-level LIST), so that readers (pyarrow, DuckDB, Hugging Face datasets) type them as declared.
import { writeFileSync } from "node:fs";

export type ParquetField =
  | { name: string; type: "STRING" | "INT64" | "DOUBLE" | "BOOLEAN"; optional?: boolean }
  | { name: string; struct: ParquetField[] }
  | { name: string; list: ParquetField[] };

const PRIMITIVE = {
  STRING: { type: "BYTE_ARRAY", converted_type: "UTF8" },
  INT64: { type: "INT64" },
  DOUBLE: { type: "DOUBLE" },
  BOOLEAN: { type: "BOOLEAN" },
} as const;

type SchemaElement = Record<string, unknown>;

function elements(field: ParquetField): SchemaElement[] {
  if ("type" in field) {
    return [
      {
        name: field.name,
        ...PRIMITIVE[field.type],
        repetition_type: field.optional ? "OPTIONAL" : "REQUIRED",
      },
    ];
  }
  if ("struct" in field) {
    return [
      { name: field.name, repetition_type: "REQUIRED", num_children: field.struct.length },
      ...field.struct.flatMap(elements),
    ];
  }
  return [
    { name: field.name, repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    { name: "element", repetition_type: "REQUIRED", num_children: field.list.length },
    ...field.list.flatMap(elements),
  ];
}

/** A value as the writer takes it: 64-bit integers as BigInt, at any depth. */
function encoded(field: ParquetField, value: unknown): unknown {
  if ("type" in field) return field.type === "INT64" && typeof value === "number" ? BigInt(value) : value;
  const record = (fields: ParquetField[], v: Record<string, unknown>) =>
    Object.fromEntries(fields.map((f) => [f.name, encoded(f, v[f.name])]));
  if ("struct" in field) return record(field.struct, value as Record<string, unknown>);
  return (value as Record<string, unknown>[]).map((v) => record(field.list, v));
}

export interface ParquetTable {
  fields: ParquetField[];
  rows: ReadonlyArray<Record<string, unknown>>;
  /** Key-value metadata of the file (the export canary, the warning). */
  metadata: Record<string, string>;
}

export async function writeParquet(file: string, table: ParquetTable): Promise<void> {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const schema = [{ name: "root", num_children: table.fields.length }, ...table.fields.flatMap(elements)];
  const columnData = table.fields.map((field) => ({
    name: field.name,
    data: table.rows.map((row) => encoded(field, row[field.name])),
  }));
  const buffer = parquetWriteBuffer({
    columnData,
    schema: schema as never,
    kvMetadata: Object.entries(table.metadata).map(([key, value]) => ({ key, value })),
    createdBy: "kgate",
  });
  writeFileSync(file, Buffer.from(buffer));
}
