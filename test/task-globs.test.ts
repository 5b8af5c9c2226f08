// Task selection by glob: `kgate calibrate 'bom-*'`, `kgate audit '{a,b}*'`, `kgate check 'x?'`
// stand for the project's tasks they match; a glob matching none, or an unknown id, is a usage error.
import { describe, expect, it } from "vitest";
import { expandTaskGlobs, selectTaskIds } from "../src/commands/task-ids.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject } from "./support/project.ts";

function project() {
  const paths = tempProject();
  for (const id of ["bom-costing", "bom-rollup", "payroll", "paper-index"])
    scaffoldTask(paths, { id, gate: "convention" });
  return paths;
}

describe("task globs", () => {
  it("expand to the matching tasks in the project's order, literal ids kept, duplicates once", () => {
    const paths = project();
    expect(selectTaskIds(paths, ["bom-*"])).toEqual(["bom-costing", "bom-rollup"]);
    expect(selectTaskIds(paths, ["pa*", "bom-rollup", "payroll"])).toEqual([
      "paper-index",
      "payroll",
      "bom-rollup",
    ]);
    expect(selectTaskIds(paths, ["{payroll,bom-c*}"])).toEqual(["bom-costing", "payroll"]);
    expect(selectTaskIds(paths, ["bom-rollu?"])).toEqual(["bom-rollup"]);
    expect(selectTaskIds(paths, [])).toEqual(["bom-costing", "bom-rollup", "paper-index", "payroll"]);
    expect(expandTaskGlobs(paths, ["no-such-task"])).toEqual(["no-such-task"]);
  });

  it("refuse a glob that matches no task, and an unknown id, naming the known ones", () => {
    const paths = project();
    expect(() => selectTaskIds(paths, ["crm-*"])).toThrow(
      /no task matches "crm-\*" in .*tasks \(known: bom-costing, bom-rollup, paper-index, payroll\)/,
    );
    expect(() => selectTaskIds(paths, ["bom"])).toThrow(/no task "bom"/);
  });

  it("select what kgate audit and kgate calibrate --estimate work on", async () => {
    const paths = project();
    const audited = await kgateInProcess(["--root", paths.root, "audit", "bom-*", "--format", "json"]);
    expect(JSON.parse(audited.stdout).tasks.map((t: { id: string }) => t.id)).toEqual([
      "bom-costing",
      "bom-rollup",
    ]);
    const priced = await kgateInProcess(["--root", paths.root, "calibrate", "p*", "--estimate", "--json"]);
    const tasks = new Set((JSON.parse(priced.stdout).cells as Array<{ task: string }>).map((c) => c.task));
    expect([...tasks].sort()).toEqual(["paper-index", "payroll"]);
    const none = await kgateInProcess(["--root", paths.root, "calibrate", "zz*", "--estimate"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no task matches "zz*"');
  });
});
