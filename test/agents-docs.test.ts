// docs/agents.md lists the built-in harness's tools as the model sees them: every tool of TOOL_SPECS,
// each with exactly its argument names, the required ones starred.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TOOL_SPECS } from "../src/agents/tools.ts";

const doc = readFileSync(path.resolve(import.meta.dirname, "../docs/agents.md"), "utf8");

/** Rows of the tools table: tool name -> its arguments cell. */
function documentedTools(): Map<string, string> {
  const start = doc.indexOf("| tool | arguments (`*` required) |");
  const table = doc.slice(start).split("\n\n")[0]!.split("\n").slice(2);
  expect(start).toBeGreaterThan(0);
  return new Map(table.map((row) => [/^\| `([a-z_]+)`/.exec(row)![1]!, row.split(" | ")[1]!]));
}

describe("docs/agents.md: the built-in tools", () => {
  it("names every tool with its arguments, the required ones starred", () => {
    const documented = documentedTools();
    expect([...documented.keys()]).toEqual(TOOL_SPECS.map((t) => t.name));
    for (const tool of TOOL_SPECS) {
      const params = tool.parameters as { properties: Record<string, { type: string }>; required?: string[] };
      const cell = documented.get(tool.name)!;
      const named = [...cell.matchAll(/`([a-z_]+)`(\*?) ([a-z]+)/g)].map((m) => [m[1], m[2] === "*", m[3]]);
      expect(named, tool.name).toEqual(
        Object.entries(params.properties).map(([name, p]) => [
          name,
          params.required?.includes(name) ?? false,
          p.type,
        ]),
      );
    }
  });
});
