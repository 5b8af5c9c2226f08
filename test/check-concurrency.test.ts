// `kgate check --concurrency n` checks n tasks side by side and reports them in the order given,
// with the same checks and statuses as one task at a time; a bad n is a usage error. The runs compared
// go through the real argv parser in this process (no Node.js start and bundle load each).
import { describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { copyLibraryTask } from "./support/library-task.ts";
import { tempProject } from "./support/project.ts";

interface CheckJson {
  tasks: Array<{ id: string; checks: Array<{ id: string; status: string; detail: string }> }>;
}

// Tasks whose data generators are Python: a copied generate.ts would import from the repository.
const IDS = ["mortgage-escrow", "payroll-overtime", "airline-booking"];

describe("kgate check --concurrency", () => {
  it("reports tasks side by side in the order asked, as one at a time does", async () => {
    const paths = tempProject();
    for (const id of IDS) copyLibraryTask(paths, id);
    const checks = async (concurrency: string) => {
      const result = await kgateInProcess([
        "--root",
        paths.root,
        "check",
        ...IDS,
        "--no-sandbox",
        "--json",
        "--concurrency",
        concurrency,
      ]);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as CheckJson).tasks.map((t) => ({
        id: t.id,
        checks: t.checks.map((c) => `${c.id} ${c.status} ${c.detail}`),
      }));
    };
    const sideBySide = await checks("3");
    const oneByOne = await checks("1");
    // The order of the arguments, not the order the three finish in.
    expect(sideBySide.map((t) => t.id)).toEqual(IDS);
    expect(sideBySide).toEqual(oneByOne);
  });

  it("refuses a concurrency of 0, naming the option", () => {
    const result = kgate(["--root", tempProject().root, "check", "--concurrency", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--concurrency must be");
  });
});
