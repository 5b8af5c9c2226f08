// Generates the JSON Schemas under schemas/ from the zod schemas that validate each file (the zod
// schema is the source of truth; checks that JSON Schema cannot say, such as cross-field rules, stay
// in zod). Run: npx tsx schemas/generate.ts   (test/json-schemas.test.ts fails when they drift)
import { writeFileSync } from "node:fs";
import path from "node:path";
import * as z from "zod";
import { KgateConfig } from "../src/agents/index.ts";
import { AuditFile } from "../src/audit/index.ts";
import { TaskSpec } from "../src/task/index.ts";

const SCHEMAS = {
  "task.schema.json": { schema: TaskSpec, title: "kgate task.json (tasks/<id>/task.json)" },
  "audit.schema.json": { schema: AuditFile, title: "kgate leak-audit file (audits/<id>.json)" },
  "kgate-config.schema.json": {
    schema: KgateConfig,
    title: "kgate agent configurations (kgate.config.json)",
  },
} as const;

/** Every schema file's JSON text, by file name. */
export function jsonSchemas(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, { schema, title }] of Object.entries(SCHEMAS)) {
    const json = z.toJSONSchema(schema as z.ZodType, {
      io: "input",
      unrepresentable: "any",
      target: "draft-2020-12",
    });
    out[file] = `${JSON.stringify({ ...json, $id: `https://kgate.dev/schemas/${file}`, title }, null, 2)}\n`;
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  for (const [file, text] of Object.entries(jsonSchemas())) {
    writeFileSync(path.join(import.meta.dirname, file), text);
    process.stdout.write(`schemas/${file} written\n`);
  }
}
