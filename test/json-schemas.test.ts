// The JSON Schemas under schemas/ are generated from the zod schemas and never drift; they validate
// every committed task.json, audit file and kgate.config.json, a fresh scaffold, and reject a wrong type.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { jsonSchemas } from "../schemas/generate.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { tempProject } from "./support/project.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (file: string) => JSON.parse(readFileSync(file, "utf8"));

function validator(name: string) {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  return ajv.compile(read(path.join(ROOT, "schemas", name)));
}

describe("schemas/", () => {
  it("holds exactly what the zod schemas generate (run `npx tsx schemas/generate.ts` after a change)", () => {
    const generated = jsonSchemas();
    const committed = readdirSync(path.join(ROOT, "schemas")).filter((f) => f.endsWith(".json"));
    expect(committed.sort()).toEqual(Object.keys(generated).sort());
    for (const [file, text] of Object.entries(generated)) {
      expect(readFileSync(path.join(ROOT, "schemas", file), "utf8"), file).toBe(text);
    }
  });

  it("validates every committed task.json, audit file and kgate.config.json", () => {
    const task = validator("task.schema.json");
    const audit = validator("audit.schema.json");
    const config = validator("kgate-config.schema.json");
    const ids = readdirSync(path.join(ROOT, "tasks"));
    expect(ids.length).toBeGreaterThanOrEqual(5);
    for (const id of ids) {
      expect(
        task(read(path.join(ROOT, "tasks", id, "task.json"))),
        `${id}: ${JSON.stringify(task.errors)}`,
      ).toBe(true);
      expect(
        audit(read(path.join(ROOT, "audits", `${id}.json`))),
        `${id}: ${JSON.stringify(audit.errors)}`,
      ).toBe(true);
    }
    expect(config(read(path.join(ROOT, "kgate.config.json"))), JSON.stringify(config.errors)).toBe(true);
  });

  it("validates a fresh scaffold, whose files point at the schemas with $schema", () => {
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention", output: "json" });
    const spec = read(path.join(paths.tasks, "demo", "task.json"));
    const auditFile = read(path.join(paths.audits, "demo.json"));
    expect(path.resolve(paths.tasks, "demo", spec.$schema)).toBe(
      path.join(ROOT, "schemas", "task.schema.json"),
    );
    expect(path.resolve(paths.audits, auditFile.$schema)).toBe(
      path.join(ROOT, "schemas", "audit.schema.json"),
    );
    expect(validator("task.schema.json")(spec)).toBe(true);
    expect(validator("audit.schema.json")(auditFile)).toBe(true);
  });

  it("rejects a wrong type, naming the field", () => {
    const task = validator("task.schema.json");
    const spec = read(path.join(ROOT, "tasks", "bom-costing", "task.json"));
    expect(task({ ...spec, gate: 3 })).toBe(false);
    expect(task.errors!.map((e) => e.instancePath)).toContain("/gate");
    const audit = validator("audit.schema.json");
    expect(audit({ items: [{ id: "x", kind: "number", value: "0.12" }] })).toBe(false);
    expect(audit.errors!.some((e) => e.instancePath === "/items/0/value")).toBe(true);
    const config = validator("kgate-config.schema.json");
    expect(config({ schemaVersion: 1, agents: { a: { harness: "builtin", maxTurns: "many" } } })).toBe(false);
  });
});
