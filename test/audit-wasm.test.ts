// The WebAssembly word pass and the scan workers: the committed scanner.wasm is what
// assembly/scanner.ts builds to, the pass reports exactly what the JavaScript pass reports, and a
// whole audit gives the same findings with and without WebAssembly, on one thread or several.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { keywordsIn } from "../src/audit/findings.ts";
import { queueOrder } from "../src/audit/parallel.ts";
import { compileRules, WORD_LITERAL, WORD_NUMBER } from "../src/audit/rules.ts";
import { AuditFile } from "../src/audit/schema.ts";
import { ShingleReader } from "../src/audit/shingles.ts";
import { type TokenPassOptions, tokenPass } from "../src/audit/token-pass.ts";
import { eachNeedle, wasmPass } from "../src/audit/wasm-pass.ts";
import type { ProjectPaths } from "../src/project.ts";
import { corpusFile, writeAuditTask } from "./support/audit-task.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

let seed = 20261130;
function rnd(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const ARTEFACT = corpusFile("artefact.md");
const PIECES = [
  "overhead",
  "12%",
  "0.12",
  "1.12x",
  "x1.12",
  "0.88",
  "3/25",
  "1,200 bp",
  "235",
  "2.35e2",
  "1/235",
  "-1.00",
  "twelve percent",
  "two hundred thirty-five",
  "one point one two",
  "ZERO_FILL",
  "zero-fill rule",
  "Northwind",
  "Eastgate",
  "2025-11-20",
  "2026-03-06T06:03",
  "06:03",
  // A number read across the start of a date: the date's inner numbers are read after it.
  "7/2025-11-20",
  "2e-2026-03-06",
  "v2",
  "A12",
  "12px",
  ".5",
  '"1,200"',
  "MTIlIG92ZXJoZWFk",
  "QUJDREVGR0hJSktMTU5PUA==",
  "Straße",
  "１２％",
  "über",
  "price",
  "level",
  "the",
  "and",
  "\n",
  ",",
  ", ",
  " ",
  " ",
  ". ",
];
const PROSE = ARTEFACT.split(/\n+/).filter((line) => line.length > 40);

function randomText(chars: number, ascii: boolean): string {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const r = rnd();
    let piece =
      r < 0.02
        ? pick(PROSE)
        : r < 0.5
          ? pick(PIECES)
          : r < 0.8
            ? (rnd() * 10 ** Math.floor(rnd() * 5)).toFixed(Math.floor(rnd() * 4))
            : rnd()
                .toString(36)
                .slice(2, 4 + Math.floor(rnd() * 14));
    if (ascii) piece = piece.replace(/[^ -~\n]/g, "e");
    parts.push(piece, rnd() < 0.6 ? " " : pick([",", "\n", ";", "-", "/"]));
    length += piece.length + 1;
  }
  return parts.join("");
}

const rules = compileRules(AuditFile.parse(JSON.parse(corpusFile("audit.json"))), {
  file: "artefacts/bom-costing/artefact.md",
  placedAt: "docs/internal/costing.md",
  text: ARTEFACT,
});

/** Everything a pass reports over `text`, in order. */
function passReport(text: string, ascii: boolean, inWasm: boolean): string[] {
  const out: string[] = [];
  const prose = new ShingleReader(rules.shingles!, text);
  const options: TokenPassOptions = {
    delimiter: 44,
    onNumber: (lit) => out.push(`number ${lit.start}-${lit.end} ${lit.value} ${lit.unit}`),
    codes: rules.forms.codes,
    words: rules.words,
    onWord: (flags, _h, s, e) => out.push(`word ${flags & (WORD_NUMBER | WORD_LITERAL)} ${s}-${e}`),
    everyWord: prose,
    onRun: (a, b) => out.push(`run ${a}-${b}`),
  };
  if (inWasm) expect(wasmPass(text, ascii, options, { reader: prose, set: rules.shingles! })).toBe(true);
  else tokenPass(text, options);
  for (const run of prose.finish()) out.push(`prose ${run.start}-${run.end} ${run.words}`);
  return out;
}

describe("the WebAssembly word pass", () => {
  it("is built from assembly/scanner.ts: the committed scanner.wasm is up to date", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "kgate-wasm-"));
    try {
      const out = path.join(dir, "scanner.wasm");
      const asc = path.join(ROOT, "node_modules", "assemblyscript", "bin", "asc.js");
      const args = [
        "assembly/scanner.ts",
        "-o",
        out,
        "-O3",
        "--runtime",
        "stub",
        "--noAssert",
        "--enable",
        "simd",
      ];
      const built = spawnSync(process.execPath, [asc, ...args], { cwd: ROOT, encoding: "utf8" });
      expect(built.status, built.stderr).toBe(0);
      expect(readFileSync(out).equals(readFileSync(path.join(ROOT, "src", "audit", "scanner.wasm")))).toBe(
        true,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ["ASCII", true],
    ["non-ASCII", false],
  ])("reports what the JavaScript pass reports (%s text)", (_name, ascii) => {
    for (let round = 0; round < 6; round++) {
      const text = randomText(round === 0 ? 200 : 40_000, ascii as boolean);
      const fromJs = passReport(text, ascii as boolean, false);
      expect(fromJs.filter((e) => e.startsWith("number")).length).toBeGreaterThan(0);
      expect(passReport(text, ascii as boolean, true)).toEqual(fromJs);
    }
  });

  it("reports prose copied from the artefact and runs around a full event buffer", () => {
    const text = `${PROSE.join("\n")}\n${"1 2 3 4 ".repeat(5000)}${PROSE.join(" ")}`;
    const fromWasm = passReport(text, true, true);
    expect(fromWasm.filter((e) => e.startsWith("prose")).length).toBeGreaterThanOrEqual(2);
    expect(fromWasm).toEqual(passReport(text, true, false));
  });
});

/** Every (position, needle) occurrence, found the plain way: a lower-cased copy and indexOf. */
function needlesByIndexOf(text: string, needles: readonly string[]): Array<[number, number]> {
  const lower = text.toLowerCase();
  const out: Array<[number, number]> = [];
  needles.forEach((needle, j) => {
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) out.push([at, j]);
  });
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

describe("the WebAssembly needle search (keyword presence)", () => {
  const needles = ["overhead", "head", "day count", "x", "12%", "cycle"];

  it("finds what indexOf finds in a lower-cased copy, any case, overlapping, over 1024 at a time", () => {
    for (let round = 0; round < 4; round++) {
      const words = [
        "OverHead",
        "HEAD",
        "Day Count",
        "day  count",
        "X",
        "12%",
        "cyclE",
        "cycl",
        "ove",
        "price",
      ];
      let text = randomText(40_000 + round * 7, true);
      text = text.replace(/ /g, () => (rnd() < 0.4 ? ` ${pick(words)} ` : " "));
      if (round === 3) text += "overhead";
      const found: Array<[number, number]> = [];
      expect(eachNeedle(text, needles, (at, j) => found.push([at, j]) > 0)).toBe(true);
      const expected = needlesByIndexOf(text, needles);
      expect(expected.length).toBeGreaterThan(1024);
      expect(found).toEqual(expected);
    }
  });

  it("searches a text the word pass has just read (its bytes are already in place) or another", () => {
    const [first, second] = [randomText(80_000, true), randomText(80_000, true)].map((t) =>
      t.replace(/ /g, () => (rnd() < 0.3 ? " OverHead " : " ")),
    );
    const search = (text: string) => {
      const found: Array<[number, number]> = [];
      eachNeedle(text, needles, (at, j) => found.push([at, j]) > 0);
      expect(found).toEqual(needlesByIndexOf(text, needles));
    };
    for (const text of [first!, second!, first!]) {
      passReport(text, true, true);
      search(second!);
      search(text);
    }
  });

  it("stops when asked to, and keywordsIn gives the same answer in WebAssembly and by regex", () => {
    const text = `${"a".repeat(70_000)}Cycle then OVERHEAD`;
    const seen: number[] = [];
    eachNeedle(text, needles, (at) => seen.push(at) < 1);
    expect(seen).toEqual([70_000]);
    const keywords = ["overhead", "cycle", "surcharge"];
    const accept = (at: number) => at > 70_005;
    expect([...keywordsIn(text, keywords, accept, true)]).toEqual(["overhead"]);
    expect([...keywordsIn(text, keywords, accept, false)]).toEqual(["overhead"]);
  });
});

describe("scan workers", () => {
  it("take files largest first", () => {
    const target = (n: number) => ({ file: `f${n}`, content: { path: `f${n}`, size: n } });
    expect(queueOrder([target(5), target(90), target(40), target(50), target(40)])).toEqual([1, 3, 2, 4, 0]);
  });

  // One project for the four audits below, each its own test (an audit of ~1.4 MB is a few seconds
  // on a loaded machine); the reference (one thread, no WebAssembly) is made by the first that needs it.
  let paths: ProjectPaths;
  beforeAll(() => {
    paths = tempProject("file");
    const environment: Record<string, string> = {};
    for (let f = 0; f < 5; f++) {
      environment[`part-${f}.${["csv", "md", "json", "txt", "tsv"][f]}`] = randomText(30_000, f !== 3);
    }
    environment["data.json"] = JSON.stringify({
      overhead: "12%",
      rows: randomText(25_000, true).split("\n"),
    });
    // Larger than the buffer files are first read into (1 MiB): it grows, the end is still read.
    environment["large.md"] = `${"A line of filler.\n".repeat(70_000)}Apply the ZERO_FILL rule.\n`;
    writeAuditTask(paths, "big", { environment });
  });
  /** The report, after checking how many threads scanned the files. */
  const audit = (env: NodeJS.ProcessEnv, threads = 1) => {
    const run = kgate(["--root", paths.root, "audit", "--json", "--show"], { env });
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.tasks[0].threads).toBe(threads);
    delete report.tasks[0].threads;
    return report;
  };
  let referenceReport: unknown;
  const reference = () => {
    referenceReport ??= audit({ KGATE_NO_WASM: "1", KGATE_AUDIT_THREADS: "1" });
    return referenceReport;
  };
  const threads = { KGATE_AUDIT_THREADS: "3", KGATE_AUDIT_PARALLEL_BYTES: "0" };

  it("on one thread without WebAssembly find every kind of rule, in a file past the first buffer too", () => {
    const report = reference() as {
      tasks: Array<{ findings: Array<{ rule: string; file: string; via: string[] }> }>;
    };
    const findings = report.tasks[0]!.findings;
    expect(new Set(findings.map((f) => f.rule))).toEqual(
      new Set([
        "gated-number",
        "gated-string",
        "gated-phrase",
        "alias-table",
        "artefact-prose",
        "artefact-canary",
      ]),
    );
    expect(findings.some((f) => f.via.includes("base64"))).toBe(true);
    expect(findings).toContainEqual(
      expect.objectContaining({ rule: "gated-string", file: "tasks/big/environment/large.md" }),
    );
  });

  it("give the same findings on one thread with WebAssembly", () => {
    expect(audit({ KGATE_AUDIT_THREADS: "1" })).toEqual(reference());
  });

  it("give the same findings on three threads", () => {
    expect(audit(threads, 3)).toEqual(reference());
  });

  it("give the same findings on three threads of the unbundled sources", () => {
    expect(audit({ ...threads, KGATE_NO_BUNDLE: "1" }, 3)).toEqual(reference());
  });
});
