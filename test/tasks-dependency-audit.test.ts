// dependency-audit: SemVer precedence, licence expressions and the policy engine's semantics on a
// hand-worked policy under the artefact's, the default (npm) and the perturbed conventions, the
// committed (synthetic) data and its gate, and the Python oracle (host python3) against the reference.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { loadTask, loadValidTask } from "../src/task/index.ts";
import { verifyTrial } from "../src/verify/index.ts";
import { checkGate, generate } from "../tasks/dependency-audit/generate.ts";
import verifier, {
  audit,
  compareVersions,
  type DependencyAuditConventions,
  licenceVerdict,
  parseLicence,
  parseLockfile,
  parsePolicy,
  parseVersion,
} from "../verifiers/dependency-audit.ts";
import { runOracleOnHost } from "./support/oracle-host.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const { artefact, default: defaults, variants } = verifier.conventions;

const POLICY = [
  "# a hand-worked policy",
  "ban B1 @t/a 1.0.0 - 1.4",
  "ban B2 @t/b ^0.2.0",
  "ban B3 @t/c <1.0.0, >=2.0.0",
  "exception E1 @t/d allow >1.1",
  "exception E2 @t/e allow ^1.0.0",
  "exception E3 @t/f allow *",
  "ban B4 @t/j >=3.0.0-rc.2 <3.0.0",
  "allow L1 MIT",
  "deny L2 GPL-3.0-only",
].join("\n");
const entry = (name: string, version: string, licence = "MIT", scope = "runtime") => ({
  name,
  version,
  licence,
  scope,
});
const LOCK = JSON.stringify({
  packages: [
    entry("@t/a", "1.4.0"),
    entry("@t/a", "1.3.9"),
    entry("@t/b", "0.5.1"),
    entry("@t/c", "2.1.0"),
    entry("@t/d", "1.1.4", "Zlib"),
    entry("@t/e", "1.5.0-rc.1", "Zlib"),
    entry("@t/f", "2.0.0", "GPL-3.0-only"),
    entry("@t/g", "3.0.0", "GPL-3.0-only", "dev"),
    entry("@t/h", "1.0.0", "MIT OR GPL-3.0-only"),
    entry("@t/i", "1.0.0", "MIT AND GPL-3.0+"),
    entry("@t/j", "3.0.0-rc.10"),
  ],
});

const decisions = (c: DependencyAuditConventions) =>
  audit(parseLockfile(LOCK), parsePolicy(POLICY), c).map(
    (r) => `${r.package}@${r.version} ${r.verdict} ${r.rule}`,
  );

describe("dependency-audit building blocks", () => {
  it("orders versions by SemVer 2.0.0 precedence (the specification's own example list)", () => {
    // SemVer 2.0.0 section 11: 1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-alpha.beta < 1.0.0-beta
    // < 1.0.0-beta.2 < 1.0.0-beta.11 < 1.0.0-rc.1 < 1.0.0; build metadata does not count.
    const ordered = [
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.1",
      "1.10.0",
    ];
    const shuffled = [
      ordered[5]!,
      ordered[9]!,
      ordered[0]!,
      ordered[7]!,
      ...ordered.slice(1, 5),
      ordered[8]!,
      ordered[6]!,
    ];
    expect([...shuffled].sort((a, b) => compareVersions(parseVersion(a), parseVersion(b)))).toEqual(ordered);
    expect(compareVersions(parseVersion("1.9.3+build.14"), parseVersion("1.9.3"))).toBe(0);
    expect(() => parseVersion("1.2")).toThrow(/"1\.2" is not a full version/);
  });

  it("evaluates licence expressions: AND before OR, best of OR, worst of AND, SPDX spellings", () => {
    const policy = parsePolicy("allow L1 MIT\nallow L2 LGPL-2.1-or-later\ndeny L3 GPL-2.0-only\n");
    const verdict = (text: string) => licenceVerdict(parseLicence(text), policy);
    // MIT OR (GPL-2.0 AND Zlib): allow beats deny(-only) AND unlisted = deny -> allow.
    expect(verdict("MIT OR GPL-2.0 AND Zlib")).toBe("allow");
    // (MIT OR GPL-2.0) AND Zlib: allow AND unlisted -> unlisted (the worse).
    expect(verdict("(MIT OR GPL-2.0) AND Zlib")).toBe("unlisted");
    expect(verdict("mit AND GPL-2.0")).toBe("deny");
    expect(verdict("LGPL-2.1+")).toBe("allow");
    expect(verdict("NOASSERTION")).toBe("unlisted");
    expect(() => parseLicence("MIT OR (Zlib")).toThrow(/a parenthesis is not closed/);
  });

  it("names the line of a policy it cannot read and the field of a bad lockfile entry", () => {
    expect(() => parsePolicy("allow L1 MIT\nban B1 @t/a\n")).toThrow(
      /policy\.txt: line 2: cannot read "ban B1 @t\/a"/,
    );
    expect(() =>
      parseLockfile('{"packages":[{"name":"a","version":"1.0.0","licence":"MIT","scope":"test"}]}'),
    ).toThrow(/packages\[0\]\.scope: expected runtime or dev/);
  });
});

describe("dependency-audit semantics on a hand-worked policy", () => {
  it("artefact: comma alternatives, zero padding, caret to the next major, hyphen upper bound out, pre-releases by precedence, deny before exception, dev without licences", () => {
    expect(decisions(artefact)).toEqual([
      "@t/a@1.4.0 allow licence-allowed", // 1.0.0 - 1.4 is >=1.0.0 <1.4.0
      "@t/a@1.3.9 deny banned",
      "@t/b@0.5.1 deny banned", // ^0.2.0 is <1.0.0
      "@t/c@2.1.0 deny banned", // <1.0.0 or >=2.0.0
      "@t/d@1.1.4 allow exception", // >1.1 is >1.1.0
      "@t/e@1.5.0-rc.1 allow exception", // 1.0.0 <= 1.5.0-rc.1 < 2.0.0 by precedence
      "@t/f@2.0.0 deny licence-denied", // the denied licence before the exception
      "@t/g@3.0.0 allow dev-only", // a dev package's licence is not evaluated
      "@t/h@1.0.0 allow licence-allowed", // MIT OR GPL-3.0-only: the better
      "@t/i@1.0.0 review unlisted", // MIT AND GPL-3.0-or-later (unlisted): the worse
      "@t/j@3.0.0-rc.10 deny banned", // rc.10 is after rc.2 (numeric identifiers)
    ]);
  });

  it("default (npm, comma as AND, exception first, every scope checked)", () => {
    expect(decisions(defaults)).toEqual([
      "@t/a@1.4.0 deny banned", // npm: 1.0.0 - 1.4 is >=1.0.0 <1.5.0
      "@t/a@1.3.9 deny banned",
      "@t/b@0.5.1 allow licence-allowed", // npm: ^0.2.0 is <0.3.0
      "@t/c@2.1.0 allow licence-allowed", // <1.0.0 and >=2.0.0: nothing
      "@t/d@1.1.4 review unlisted", // npm: >1.1 is >=1.2.0
      "@t/e@1.5.0-rc.1 review unlisted", // npm: no comparator names a 1.5.0 pre-release
      "@t/f@2.0.0 allow exception", // the exception before the licence lists
      "@t/g@3.0.0 deny licence-denied", // dev checked like runtime
      "@t/h@1.0.0 allow licence-allowed",
      "@t/i@1.0.0 review unlisted",
      "@t/j@3.0.0-rc.10 deny banned", // >=3.0.0-rc.2 names a 3.0.0 pre-release
    ]);
  });

  it("perturbed: pre-releases only by exact pins, exceptions over bans, dev exempt", () => {
    const perturbed = decisions(variants.perturbed!);
    const changed = perturbed.filter((d, i) => d !== decisions(artefact)[i]);
    expect(changed).toEqual([
      "@t/e@1.5.0-rc.1 review unlisted",
      "@t/f@2.0.0 allow exception",
      "@t/j@3.0.0-rc.10 allow licence-allowed",
    ]);
    // A dev package is exempt even from a ban.
    const banned = audit(
      parseLockfile(JSON.stringify({ packages: [entry("@t/b", "0.5.1", "MIT", "dev")] })),
      parsePolicy(POLICY),
      variants.perturbed!,
    );
    expect(banned).toEqual([{ package: "@t/b", version: "0.5.1", verdict: "allow", rule: "dev-only" }]);
  });

  it("compressed: the artefact's conventions exactly", () => {
    expect(variants.compressed).toEqual(artefact);
  });
});

describe("dependency-audit data (synthetic, from the seeded generator)", () => {
  const paths = projectPaths(ROOT);
  const task = loadValidTask(paths, "dependency-audit");

  it("is a valid task without warnings whose committed files are what the generator produces", () => {
    const result = loadTask(paths, "dependency-audit");
    expect(result.ok && result.warnings).toEqual([]);
    const files = generate();
    expect(Object.keys(files).sort()).toEqual(task.environment.map((f) => f.path));
    for (const [name, content] of Object.entries(files)) {
      expect(readFileSync(path.join(task.dir, "environment", name), "utf8")).toBe(content);
    }
    // The gate: every rule decides some package, the default and perturbed answers differ, every convention bites.
    expect(() => checkGate(files)).not.toThrow();
  });

  it("gives three different answers under the artefact, the default and the perturbed conventions", () => {
    const files = generate();
    const answers = [artefact, defaults, variants.perturbed!].map((c) =>
      JSON.stringify(verifier.solve(files, c)),
    );
    expect(new Set(answers).size).toBe(3);
  });

  it("states the synthetic nature in the instruction, and compresses to under a third of the bytes", () => {
    expect(task.instruction.toString("utf8")).toMatch(/synthetic/);
    const compressed = task.variants.find((v) => v.name === "compressed")!;
    expect(compressed.bytes.length * 3).toBeLessThan(task.artefact.bytes.length);
    expect(compressed.bytes.toString("utf8").split("\n")[0]).toBe(
      `<!-- kgate-canary: ${task.artefact.canary} -->`,
    );
  });
});

describe("dependency-audit oracle (Python, on the host, reading the specification it is given)", () => {
  const task = loadValidTask(projectPaths(ROOT), "dependency-audit");

  it("passes under +A and under the compressed variant", async () => {
    for (const condition of ["+A", "variant:compressed"] as const) {
      const run = runOracleOnHost(task, condition);
      expect(run.stderr).toBe("");
      expect((await verifyTrial(task, run.outputs)).status, condition).toBe("pass");
    }
  });

  it("placed over the perturbed variant, computes exactly the perturbed conventions' answer", async () => {
    const verdict = await verifyTrial(task, runOracleOnHost(task, "variant:perturbed").outputs);
    expect(verdict.attribution).toBe("perturbed-convention:perturbed");
    expect(verdict.agreement?.["perturbed-convention:perturbed"]).toBe(1);
  });

  it("stops without the specification (-A)", () => {
    const run = runOracleOnHost(task, "-A");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/is not present/);
    expect(run.outputs[0]?.status).toBe("missing");
  });
});
