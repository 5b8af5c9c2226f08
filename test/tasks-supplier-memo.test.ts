// supplier-memo: the reference answer worked out by hand from the committed quotes, the generator, the
// Python oracle under +A, the perturbed and compressed variants and -A, the code criterion, and the
// whole `kgate check` without the sandbox with its judge at the loopback server (a scripted judge that
// passes a memo stating every figure the criterion names): the judge calibration passes. Exported
// to Harbor, its verifier cannot ask a judge: the oracle's memo is unverified there, never a verdict.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkTask } from "../src/check/index.ts";
import { loadVerifier, renderAnswers, solveRaw, verifyWith, withoutJudges } from "../src/verify/index.ts";
import verifier from "../verifiers/supplier-memo.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { goodJudge, judgeScript, writeJudgeConfig } from "./support/judge-model.ts";
import { copyLibraryTask, libraryTask, oracleOutput } from "./support/library-task.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { tempProject } from "./support/project.ts";
import { collected } from "./support/verify-fixture.ts";

const ID = "supplier-memo";
const OUTPUT = "output/recommendation.md";
const library = libraryTask(ID, OUTPUT, "supplier");
const { task, tempDir, environmentOf } = library;
const committed = environmentOf(task);
const { artefact, default: defaults, variants } = verifier.conventions;
const solved = (c: typeof artefact) => verifier.solve(committed, c)[OUTPUT];

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("supplier-memo reference solver, by hand", () => {
  it("recommends Brightline Components at 13.25 and names Halvorsen Castings at 13.31", () => {
    // Brightline (US): 12.95 + 180/600 = 13.25; no duty, lead 12 days: no carrying cost.
    // Halvorsen (NO): CIF 11.80 + 420/600 = 12.50; duty 4.5% of 12.50 = 0.5625; lead 35 days, 14
    // beyond 21, x 0.15% x 11.80 = 0.2478; 12.50 + 0.5625 + 0.2478 = 13.3103 -> 13.31.
    // Quanzhou (defect 2.6%) and Sahin (2.3%) are above 2.0%: excluded.
    expect(solved(artefact)).toEqual({
      winner: { supplier: "Brightline Components", cost: 13.25 },
      runnerUp: { supplier: "Halvorsen Castings", cost: 13.31 },
      excluded: ["Quanzhou Precision", "Sahin Dokum"],
    });
  });

  it("under the default conventions picks the cheapest CIF: Quanzhou at 11.90, then Sahin at 12.00", () => {
    // no duty, no carrying cost, no quality gate: 10.40 + 900/600 = 11.90; 10.90 + 660/600 = 12.00
    expect(solved(defaults)).toEqual({
      winner: { supplier: "Quanzhou Precision", cost: 11.9 },
      runnerUp: { supplier: "Sahin Dokum", cost: 12 },
      excluded: [],
    });
  });

  it("under the perturbed variant keeps Brightline but prices Halvorsen at 13.37", () => {
    // duty 6% of 12.50 = 0.75; carrying from day 28: 7 days x 0.15% x 11.80 = 0.1239; 13.3739 -> 13.37
    expect(solved(variants.perturbed!)).toMatchObject({
      winner: { supplier: "Brightline Components", cost: 13.25 },
      runnerUp: { supplier: "Halvorsen Castings", cost: 13.37 },
    });
  });
});

describe("supplier-memo generator and oracle", () => {
  it("regenerates byte-identical quotes", () => {
    const out = tempDir();
    execFileSync("node", [path.join(task.dir, "generate.mjs"), out]);
    expect(readdirSync(out)).toEqual(["quotes.csv"]);
    expect(
      readFileSync(path.join(out, "quotes.csv")).equals(readFileSync(task.environment[0]!.absPath)),
    ).toBe(true);
  });

  it("the Python oracle writes a memo that opens with the recommendation and states both costs", () => {
    const memo = oracleOutput(task);
    expect(memo.split("\n")[0]).toBe("Recommended supplier: Brightline Components");
    expect(memo).toContain("13.25 USD per unit");
    expect(memo).toContain("Halvorsen Castings, at 13.31 USD per unit");
    expect(memo).toContain("Quanzhou Precision, Sahin Dokum");
  });

  it("the Python oracle stops without the specification (-A)", () => {
    const work = tempDir();
    for (const f of task.environment) execFileSync("cp", [f.absPath, path.join(work, f.path)]);
    expect(() =>
      execFileSync("bash", ["-c", task.spec.solution.command], {
        cwd: work,
        env: { ...process.env, KGATE_SOLUTION_DIR: task.solutionDir },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    ).toThrow(/is not present/);
  });
});

describe("supplier-memo rubric", () => {
  it("its code criterion fails the default memo, whose first line names Quanzhou Precision", async () => {
    const loaded = await loadVerifier(task);
    const wrong = renderAnswers(task, loaded, solveRaw(task, loaded, "default"));
    const verdict = withoutJudges(verifyWith(task, loaded, wrong), "not asked");
    expect(verdict.criteria[0]).toEqual({
      name: `${OUTPUT}: first line names the recommended supplier`,
      passed: false,
      detail: 'first line is "Recommended supplier: Quanzhou Precision"',
      weight: 1,
    });
    const right = verifyWith(task, loaded, [collected(OUTPUT, oracleOutput(task))]);
    expect(withoutJudges(right, "not asked").status).toBe("pass");
  });

  it("passes `kgate check` without the sandbox, its judge calibrated at the loopback server", async () => {
    server = await startModelServer(judgeScript(goodJudge), { requireKey: "k-judge" });
    const paths = tempProject();
    copyLibraryTask(paths, ID);
    writeJudgeConfig(paths, { provider: "anthropic", baseUrl: server.anthropicUrl });
    const result = await checkTask(paths, ID, { env: { KGATE_TEST_JUDGE_KEY: "k-judge" } });
    const byId = Object.fromEntries(result.checks.map((c) => [c.id, c]));
    expect(result.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(result.ok).toBe(true);
    expect(byId[`judge:${OUTPUT}: recommends the cheapest qualified supplier`]!.detail).toContain(
      // the perturbed memo states the same recommendation: it must pass this criterion
      "oracle pass 3/3, default fail 3/3, injection fail 3/3, perturbed:perturbed pass 3/3, as default pass 3/3",
    );
    expect(byId[`judge:${OUTPUT}: names the runner-up`]!.detail).toContain(
      "oracle pass 3/3, default fail 3/3, injection fail 3/3, perturbed:perturbed fail 3/3, as default pass 3/3, as perturbed:perturbed pass 3/3",
    );
    expect(byId["judge:rubric"]!.status).toBe("pass");
  });
});

describe("supplier-memo exported to Harbor", () => {
  it("its bundled verifier asks no judge: the oracle's memo is unverified (exit 1, reward 0), not failed", async () => {
    const out = tempDir();
    const repoRoot = path.resolve(import.meta.dirname, "..");
    const exported = await kgateInProcess([
      "--root",
      repoRoot,
      "export",
      "harbor",
      ID,
      "--condition",
      "+A",
      "--out",
      out,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const work = tempDir();
    const logs = tempDir();
    mkdirSync(path.join(work, "output"));
    writeFileSync(path.join(work, OUTPUT), oracleOutput(task));
    const tests = path.join(out, `${ID}-plus-a`, "tests");
    const run = spawnSync(process.execPath, [path.join(tests, "verify.mjs"), work, logs], {
      encoding: "utf8",
    });
    const { verdict } = JSON.parse(readFileSync(path.join(logs, "verdict.json"), "utf8"));
    // the code criterion passes the oracle's first line; the two judge criteria stay unjudged
    expect(verdict.status).toBe("unverified");
    expect(verdict.reason).toContain("an exported verifier has neither");
    expect(verdict.criteria.map((c: { judge?: { verdict: string } }) => c.judge?.verdict ?? "code")).toEqual([
      "code",
      "error",
      "error",
    ]);
    expect(readFileSync(path.join(logs, "reward.txt"), "utf8").trim()).toBe("0");
    expect(run.status).toBe(1);
  });
});
