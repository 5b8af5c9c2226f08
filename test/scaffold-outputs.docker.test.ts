// `kgate new --output csv|json|text`: each scaffold fails `kgate check` while its TODOs are left, and
// passes every check (oracle and variants in the real sandbox) once they are filled.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { conventionSections } from "../src/task/index.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { fillTodos } from "./support/todos.ts";

interface CheckJson {
  tasks: Array<{ ok: boolean; checks: Array<{ id: string; status: string; detail: string }> }>;
}

const OUTPUT_FILE = { csv: "output/result.csv", json: "output/result.json", text: "output/report.md" };

describe("kgate new --output", () => {
  it.each(["csv", "json", "text"] as const)(
    "scaffolds a %s task that passes check once its TODOs are filled",
    (format) => {
      sandboxImage();
      const paths = tempProject();
      const created = kgate(["--root", paths.root, "new", "demo", "--output", format]);
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(new RegExp(`^created task "demo" \\(convention gate, ${format} output`));
      const spec = JSON.parse(readFileSync(path.join(paths.tasks, "demo", "task.json"), "utf8"));
      expect(spec.outputs.map((o: { path: string; format: string }) => [o.path, o.format])).toEqual([
        [OUTPUT_FILE[format], format],
      ]);
      expect(Object.keys(spec.artefact.variants)).toEqual(["perturbed", "compressed"]);
      for (const file of ["artefact.md", "variants/perturbed.md", "variants/compressed.md"]) {
        const text = readFileSync(path.join(paths.artefacts, "demo", file), "utf8");
        expect(
          conventionSections(text).sections.map((s) => s.name),
          file,
        ).toEqual(["rate"]);
      }

      const untouched = kgate(["--root", paths.root, "check", "--no-sandbox"]);
      expect(untouched.code).toBe(1);
      expect(untouched.stdout).toMatch(/✗ leftovers +\d+ TODO marker\(s\) left: /);

      fillTodos(paths, "demo");
      const result = kgate(["--root", paths.root, "check", "--json"], { timeoutMs: 240_000 });
      const checks = (JSON.parse(result.stdout) as CheckJson).tasks[0]!.checks;
      expect(checks.filter((c) => c.status !== "pass")).toEqual([]);
      expect(checks.map((c) => c.id)).toEqual([
        "schema",
        "digests",
        "instruction-files",
        "leftovers",
        "generator",
        "verifier",
        "markers",
        "deterministic",
        "contract",
        "oracle",
        "noop",
        "oracle:variant:perturbed",
        "oracle:variant:compressed",
        "oracle:conventions",
        "default",
        "variant:perturbed",
        "variant:compressed",
        "dead-rules",
        "artefact-numbers",
        "leak-audit",
      ]);
      expect(result.code).toBe(0);
    },
    300_000,
  );

  it("rejects an unknown format with a usage error (exit 2)", () => {
    const paths = tempProject();
    const result = kgate(["--root", paths.root, "new", "demo", "--output", "xml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--output <format>.*xml.*Allowed choices are csv, json, text/s);
  });
});
