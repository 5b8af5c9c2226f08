// Seeing why a trial failed: `kgate show`'s text mode prints the failed criteria, the attribution's
// agreement and the capped diff; `kgate report` on a `kgate run` directory points at `kgate show`.
// The trial is the scaffold's oracle under its perturbed variant, in the real sandbox.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { fillTodos } from "./support/todos.ts";

describe("why a trial failed", () => {
  it("kgate show prints criteria, agreement and diff; kgate report points at kgate show", () => {
    sandboxImage();
    const paths = tempProject();
    kgate(["--root", paths.root, "new", "demo"]);
    fillTodos(paths, "demo");
    const ran = kgate(
      [
        "--root",
        paths.root,
        "run",
        "demo",
        "--agent",
        "oracle",
        "--condition",
        "variant:perturbed",
        "--run-id",
        "r1",
      ],
      { timeoutMs: 240_000 },
    );
    expect([0, 1], ran.stderr).toContain(ran.code); // ran; the verdict is read from the record
    const record = JSON.parse(
      readFileSync(path.join(paths.runs, "r1", "trials.jsonl"), "utf8").split("\n")[0]!,
    );
    expect(record.verdict.attribution).toBe("perturbed-convention:perturbed");

    const shown = kgate(["--root", paths.root, "show", `r1/${record.trialId}`]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^verdict +FAIL .*attribution perturbed-convention:perturbed$/m);
    expect(shown.stdout).toMatch(/^ {2}✗ output\/result\.csv/m);
    // Every value differs between the perturbed answer and the artefact's, so its agreement is 1.00.
    expect(shown.stdout).toMatch(/^ {2}agreement .*perturbed-convention:perturbed 1\.00/m);
    // widget: 3 x 1.12 = 3.36 expected, 3 x 1.15 = 3.45 written; gadget: 5.60 vs 5 x 1.15 = 5.75.
    const diff = shown.stdout.split("\n").filter((l) => l.startsWith("  | "));
    expect(diff.join("\n")).toMatch(/3\.36/);
    expect(diff.join("\n")).toMatch(/3\.45/);

    const report = kgate(["--root", paths.root, "report", "r1"]);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(
      /not a calibration run; runs\/r1 holds trials of `kgate run`: see them with `kgate show r1`/,
    );
  }, 300_000);
});
