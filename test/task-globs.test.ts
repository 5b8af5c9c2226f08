// Task selection by glob: `kgate calibrate 'bom-*'`, `kgate audit '{a,b}*'`, `kgate check 'x?'`
// stand for the project's tasks they match; a glob matching none, or an unknown id, is a usage error.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expandTaskGlobs, selectTaskIds } from "../src/commands/task-ids.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { tempProject, writeJson } from "./support/project.ts";

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

describe("a misspelt task id", () => {
  const LINES: string[][] = [
    ["run", "bom-costng", "--agent", "oracle"],
    ["calibrate", "bom-costng", "--estimate"],
    ["calibrate", "bom-costng", "--frontier", "oracle", "--mid", "noop"],
    ["check", "bom-costng", "--no-sandbox"],
    ["audit", "bom-costng"],
    ["probe", "recite", "bom-costng", "--agent", "oracle"],
    ["export", "harbor", "bom-costng", "--out", "exported"],
    ["exam", "--tasks", "bom-costng", "--agent", "oracle", "--budget", "1000"],
    ["exam", "--inline-tasks", "bom-costng", "--agent", "oracle", "--budget", "1000"],
    ["triage", "tasks:bom-costng", "--agent", "m"],
    ["triage", "inline:bom-costng", "--agent", "m"],
  ];

  it.each(LINES)("gets the id meant and the known ids: %s %s %s", async (...line) => {
    const paths = project();
    // triage needs a model configuration (its endpoint is never reached: the pool is refused first)
    const m = { harness: "builtin", provider: "openai-compatible", model: "m", apiKeyEnv: null };
    writeJson(path.join(paths.root, "kgate.config.json"), {
      schemaVersion: 1,
      agents: { m: { ...m, baseUrl: "http://127.0.0.1:9/v1" } },
    });
    const result = await kgateInProcess(["--root", paths.root, ...line]);
    expect(result.code).toBe(2);
    // "bom-costng" is one edit from "bom-costing" (an inserted i), far from the others
    expect(result.stderr).toContain(
      'no task "bom-costng" in ' +
        `${paths.tasks}: did you mean "bom-costing"? (known: bom-costing, bom-rollup, paper-index, payroll)`,
    );
  });
});
