// The parts of `kgate new`'s templates that depend on the output format (csv, json, text): the
// output's entry in task.json, its sentence in the instruction, the oracle's writer and the
// verifier's answer (and rubric, for text).
import type { TaskSpecInput } from "./schema.ts";

const OUTPUT_FORMATS = ["csv", "json", "text"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface OutputTemplate {
  spec: TaskSpecInput["outputs"][number];
  /** The instruction's sentence on what to write where. */
  instruction: string;
  /** Python lines that write `rows` (a list of (item, value) pairs) to the output. */
  writer: string;
  /** The verifier's solve() return value, a TypeScript expression over `rows`. */
  answer: string;
  /** The verifier's rubric property (text only). */
  rubric?: string;
}

const ITEMS_SCHEMA = {
  type: "object",
  properties: {
    items: {
      type: "array",
      items: {
        type: "object",
        properties: { item: { type: "string" }, value: { type: "number" } },
        required: ["item", "value"],
        additionalProperties: false,
      },
    },
  },
  required: ["items"],
  additionalProperties: false,
};

export function outputTemplate(format: OutputFormat): OutputTemplate {
  if (format === "json") {
    return {
      spec: {
        path: "output/result.json",
        format: "json",
        schema: ITEMS_SCHEMA,
        compare: { keyedArrays: { "/items": ["item"] } },
      },
      instruction:
        'Write your result to `output/result.json` as `{"items": [{"item": ..., "value": ...}]}`, one\nelement per item,',
      writer: `import json
with open("output/result.json", "w") as out:
    json.dump({"items": [{"item": item, "value": round(value, 2)} for item, value in rows]}, out)`,
      answer: `{ "output/result.json": { items: rows } }`,
    };
  }
  if (format === "text") {
    return {
      spec: { path: "output/report.md", format: "text", maxBytes: 65536 },
      instruction: "Write a short report to `output/report.md` with one line `- <item>: <value>` per item,",
      writer: `with open("output/report.md", "w") as out:
    out.write("".join(f"- {item}: {value:.2f}\\n" for item, value in rows))`,
      answer: `{ "output/report.md": rows }`,
      rubric: `rubric: {
    "output/report.md": {
      criteria: [
        {
          name: "states every item's value",
          check: (text: string, rows: Row[]) => {
            const missing = rows.filter((r) => !text.includes(\`\${r.item}: \${r.value.toFixed(2)}\`));
            return { passed: missing.length === 0, detail: missing.length ? \`missing: \${missing.map((r) => r.item).join(", ")}\` : undefined };
          },
        },
      ],
      render: (rows: Row[]) => rows.map((r) => \`- \${r.item}: \${r.value.toFixed(2)}\\n\`).join(""),
    },
  },`,
    };
  }
  return {
    spec: {
      path: "output/result.csv",
      format: "csv",
      columns: [
        { name: "item", type: "string" },
        { name: "value", type: "number" },
      ],
      key: ["item"],
    },
    instruction: "Write your result to `output/result.csv` with the columns `item,value`, one row per item,",
    writer: `import csv
with open("output/result.csv", "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["item", "value"])
    for item, value in rows:
        writer.writerow([item, f"{value:.2f}"])`,
    answer: `{ "output/result.csv": rows }`,
  };
}
