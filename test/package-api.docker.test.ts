// kgate as an installed library (issue 44 item 1): `npm pack` of a staged copy of the repository
// (its `prepare` builds dist/ and the declarations), the tarball installed into a fresh project with
// no TypeScript loader, then plain Node imports "kgate" and "kgate/verify" (built files, not .ts),
// verifies outputs and calibrates a task with the oracle and noop agents in real sandboxes, reading
// the decision from the typed result; a TypeScript consumer type-checks against the .d.ts files.
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir, writeJson } from "./support/project.ts";
import { demoTask, sandboxImage } from "./support/sandbox.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");

function sh(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, CI: "true" } });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** The tarball `npm pack` makes of a copy of the repository (the repository's own dist/ is left alone). */
function pack(): string {
  const stage = tempDir("kgate-pack-", "file");
  const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { files: string[] };
  for (const entry of [
    ...manifest.files,
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "scripts",
  ]) {
    cpSync(path.join(ROOT, entry), path.join(stage, entry), {
      recursive: true,
      filter: (source) => !source.startsWith(path.join(ROOT, "dist")),
    });
  }
  symlinkSync(path.join(ROOT, "node_modules"), path.join(stage, "node_modules"));
  const out = sh("npm", ["pack", "--json", "--pack-destination", stage], stage);
  const [packed] = JSON.parse(out.slice(out.indexOf("["))) as Array<{ filename: string }>;
  return path.join(stage, packed!.filename);
}

/** A fresh project with the tarball installed (from npm's cache where it can), nothing else. */
function consumerOf(tarball: string): string {
  const dir = tempDir("kgate-consumer-", "file");
  writeJson(path.join(dir, "package.json"), { name: "consumer", private: true, type: "module" });
  sh("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", tarball], dir);
  return dir;
}

/** The runnable example of docs/api.md (its first js block), as a user would save it. */
function documentedExample(): string {
  const doc = readFileSync(path.join(ROOT, "docs", "api.md"), "utf8");
  return /```js\n([\s\S]*?)```/.exec(doc)![1]!;
}

/** Reads back the example's run and checks the rest of the surface: `node inspect.mjs <project> <run dir>`. */
const INSPECT_JS = `
import { audit, check, kgateVersion, listTasks, loadTask, openProject, readRecords, report, runTrials, verifyOutputs } from "kgate";
import { parseCsv } from "kgate/verify";
const project = openProject(process.argv[2]);
const task = loadTask(project, "demo");
const right = await verifyOutputs(task, [{ path: "output/result.csv", content: "item,value\\nwidget,3.36\\ngadget,5.60\\n" }]);
const wrong = await verifyOutputs(task, [{ path: "output/result.csv", content: "item,value\\nwidget,3.99\\ngadget,5.60\\n" }]);
const read = readRecords(process.argv[3]);
const audited = await audit(project);
const checked = await check(project, { sandbox: false });
const reported = report(project, process.argv[3]);
const seen = [];
const trials = await runTrials(project, { task: "demo", agent: "oracle", condition: "+A", n: 1, onTrial: (r) => seen.push(r.trialId) });
console.log(JSON.stringify({
  resolved: [import.meta.resolve("kgate"), import.meta.resolve("kgate/verify")],
  loaders: process.execArgv,
  version: kgateVersion(),
  tasks: listTasks(project),
  right: right.status,
  wrong: wrong.status,
  records: read.records.map((r) => [r.agent.name, r.verdict.status]).sort(),
  problems: read.problems,
  csv: parseCsv("a\\n1\\n"),
  trials: trials.records.map((r) => [r.agent.name, r.condition, r.verdict.status]),
  onTrial: seen.length === 1 && seen[0] === trials.records[0].trialId,
  written: readRecords(trials.runDir).records.length,
  audit: audited.tasks.map((t) => [t.id, t.status]),
  check: [checked.runId, checked.tasks.map((t) => [t.id, t.checks.filter((c) => c.status === "fail").map((c) => c.id)])],
  report: [reported.summary.tasks.map((t) => t.decision), reported.written.length],
}));
`;

const CONSUMER_TS = `
import { type AuditReport, audit, type CalibrationResult, calibrate, openProject, type TrialRecord } from "kgate";
import { parseCsv } from "kgate/verify";
const project = openProject(".");
const result: CalibrationResult = await calibrate(project, { tasks: ["demo"], overrides: { n: 3 } });
const decision: "retain" | "revise" | "discard" | "incomplete" = result.summary.tasks[0]!.decision;
// @ts-expect-error a decision is a word, not a number (unused if the types were any)
const asNumber: number = result.summary.tasks[0]!.decision;
// @ts-expect-error no such option
await calibrate(project, { taskz: ["demo"] });
const first: TrialRecord["verdict"]["status"] | undefined = undefined;
const audited: AuditReport = await audit(project, { staged: true });
// @ts-expect-error an audit's counts are numbers
const errors: string = audited.counts.error;
const csv = parseCsv("a\\n1\\n");
export const seen = [decision, asNumber, first, errors, csv.ok && csv.csv.header];
`;

describe("the packed package, installed into a fresh project", () => {
  let consumer: string;
  beforeAll(() => {
    consumer = consumerOf(pack());
  });

  it("runs docs/api.md's example from plain Node (built files), calibrating with oracle and noop", () => {
    sandboxImage();
    const { paths } = demoTask();
    writeJson(paths.config, {
      calibration: {
        n: 3,
        concurrency: 2,
        cells: [
          { name: "oracle+A", agent: "oracle", condition: "+A", require: ">= 0.6" },
          { name: "noop-A", agent: "noop", condition: "-A", require: "= 0" },
        ],
      },
    });
    writeFileSync(path.join(consumer, "calibrate.mjs"), documentedExample());
    const example = sh(process.execPath, ["calibrate.mjs", paths.root, "demo"], consumer).split("\n");
    // The oracle passes 3 of 3 (>= 0.6 holds), noop 0 of 3 (= 0 holds): retained; 6 trials, 3 passed.
    expect(example[0]).toMatch(/^demo: retain \(/);
    expect(example[1]).toMatch(/^6 trials, 3 passed, run cal-/);
    const runId = example[1]!.split(" run ")[1]!;

    writeFileSync(path.join(consumer, "inspect.mjs"), INSPECT_JS);
    const runDir = path.join(paths.runs, runId);
    const out = JSON.parse(sh(process.execPath, ["inspect.mjs", paths.root, runDir], consumer));
    const installed = path.join(consumer, "node_modules", "kgate");
    expect(out.resolved).toEqual([
      `file://${path.join(installed, "dist", "index.js")}`,
      `file://${path.join(installed, "dist", "verify.js")}`,
    ]);
    expect(out.loaders).toEqual([]);
    expect(out.version).toBe(JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).version);
    expect(out.tasks).toEqual(["demo"]);
    expect([out.right, out.wrong]).toEqual(["pass", "fail"]);
    expect(out.records).toEqual([
      ["noop", "fail"],
      ["noop", "fail"],
      ["noop", "fail"],
      ["oracle", "pass"],
      ["oracle", "pass"],
      ["oracle", "pass"],
    ]);
    expect(out.problems).toEqual([]);
    // runTrials: one oracle trial under +A, reported to onTrial and written to its run's trials.jsonl.
    expect(out.trials).toEqual([["oracle", "+A", "pass"]]);
    expect(out.onTrial).toBe(true);
    expect(out.written).toBe(1);
    // audit(): the scaffolded demo task's files hold no gated value; report(): the example's run,
    // recomputed from its files (retained, as above), and its six report files written again.
    expect(out.audit).toEqual([["demo", "clean"]]);
    // check() without a sandbox: no run of trials; the scaffolded demo task still has its TODO
    // markers, so the one failed check is leftovers.
    expect(out.check).toEqual([null, [["demo", ["leftovers"]]]]);
    expect(out.report).toEqual([["retain"], 6]);
    expect(out.csv).toEqual({ ok: true, csv: { header: ["a"], records: [["1"]], lines: [2] } });
  }, 300_000);

  it("type-checks a TypeScript consumer against the package's declarations", () => {
    writeFileSync(path.join(consumer, "check.ts"), CONSUMER_TS);
    writeJson(path.join(consumer, "tsconfig.json"), {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ["check.ts"],
    });
    const files = sh(process.execPath, [TSC, "-p", ".", "--listFilesOnly"], consumer).split("\n");
    const kgateFiles = files.filter((f) => f.includes("/node_modules/kgate/"));
    expect(kgateFiles).toContain(path.join(consumer, "node_modules/kgate/dist/types/api/index.d.ts"));
    expect(kgateFiles.filter((f) => !f.endsWith(".d.ts"))).toEqual([]);
    // Exit 0: every use is well typed and the three @ts-expect-error lines meet an error.
    sh(process.execPath, [TSC, "-p", "."], consumer);
  }, 120_000);
});
