// Benchmark of the leak audit, each figure beside a baseline measured in the same run:
//  (a) `kgate audit` of the whole task library (target < 0.5 s), baseline `node -e 0`;
//  (b) `kgate audit --staged` in a repository of 200 tasks with one staged change (target < 0.3 s),
//      baselines `node -e 0` and `git diff --cached --name-only`;
//  (c) a ~100 MB synthetic environment corpus: `kgate audit` (also on one thread, and without
//      WebAssembly) vs `grep -F -f <literals>` (and ripgrep when installed) over the same files and
//      literal list (target: within 3x of grep).
// Wall times are medians of several runs of separate processes. KGATE_BENCH_MB sets the corpus size.
//   npm run bench audit      or      npx tsx bench/audit.ts
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { projectPaths } from "../src/project.ts";
import { scaffoldTask } from "../src/task/index.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "kgate.js");
const RUNS = 5;
const CORPUS_MB = Number(process.env.KGATE_BENCH_MB ?? 100);

const AUDIT = {
  items: [
    { id: "overhead-rate", kind: "number", value: 0.12, context: ["overhead", "surcharge"] },
    { id: "day-count", kind: "number", value: 235, context: ["day count", "production year"] },
    { id: "cycle", kind: "number", value: -1, context: ["cycle"] },
    { id: "zero-fill", kind: "string", values: ["ZERO_FILL", "zero-fill rule"] },
    {
      id: "regions",
      kind: "table",
      values: ["Northwind", "Eastgate", "Southmere", "Westholm"],
      minMatches: 2,
    },
    { id: "compounding", kind: "phrase", text: "compounded per BOM level" },
  ],
  allowlist: [],
};
/** What grep is given: the literal strings, and the plain written forms of the numbers. */
const GREP_LITERALS = [
  "ZERO_FILL",
  "zero-fill rule",
  "Northwind",
  "Eastgate",
  "Southmere",
  "Westholm",
  "compounded per BOM level",
  "docs/internal/specification.md",
  "specification.md",
  "0.12",
  "12%",
  "1.12",
  "0.88",
  "235",
  "-1.00",
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Probe {
  cmd: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  ok?: number[];
}

/**
 * Median wall times (ms) of commands run as their own processes, interleaved round by round so a
 * baseline and what it is compared with see the same machine load; checks exit codes.
 */
function timeAll(probes: Probe[], runs = RUNS): number[] {
  const times: number[][] = probes.map(() => []);
  for (let round = 0; round < runs; round++) {
    probes.forEach((p, k) => {
      const start = performance.now();
      const r = spawnSync(p.cmd, p.args, {
        cwd: p.cwd,
        env: { ...process.env, ...p.env },
        maxBuffer: 1 << 30,
      });
      times[k]!.push(performance.now() - start);
      if (!(p.ok ?? [0]).includes(r.status ?? -1)) {
        throw new Error(
          `${p.cmd} ${p.args.join(" ")} exited ${r.status}: ${r.stderr?.toString().slice(0, 400)}`,
        );
      }
    });
  }
  return times.map(median);
}

function row(label: string, ms: number, baseline: number, baselineLabel: string): string {
  return `| ${label} | ${ms.toFixed(0)} ms | ${(ms / baseline).toFixed(2)}x ${baselineLabel} |`;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync("git", ["-c", "user.email=b@example.com", "-c", "user.name=bench", ...args], { cwd });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

/** 200 scaffolded tasks in a git repository, committed, with one instruction edit staged. */
function stagedRepo(): string {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-staged-"));
  const paths = projectPaths(root);
  for (let i = 0; i < 200; i++) {
    const id = `task-${String(i).padStart(3, "0")}`;
    scaffoldTask(paths, { id, gate: "convention" });
    const rows = Array.from({ length: 200 }, (_, r) => `item-${r},${(r * 37) % 500}`).join("\n");
    writeFileSync(path.join(paths.tasks, id, "environment", "input.csv"), `item,quantity\n${rows}\n`);
  }
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "tasks", "--no-verify");
  const instruction = path.join(paths.tasks, "task-123", "instruction.md");
  writeFileSync(instruction, `${readFileSync(instruction, "utf8")}\nRound half away from zero.\n`);
  git(root, "add", instruction);
  return root;
}

let seed = 12345;
function rnd(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
const WORDS =
  "the of and to in is for on that by with as at from item price cost quantity total order supplier region widget gadget assembly component level rate fee charge invoice account balance payment schedule month year report summary note".split(
    " ",
  );
const word = () => WORDS[Math.floor(rnd() * WORDS.length)]!;

function csvChunk(lines: number): string {
  const out = ["sku,name,price,qty,ratio,date"];
  for (let i = 0; i < lines; i++) {
    out.push(
      `SKU-${Math.floor(rnd() * 99999)},${word()},${(rnd() * 1000).toFixed(2)},${Math.floor(rnd() * 500)},${rnd().toFixed(4)},2024-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}`,
    );
  }
  return `${out.join("\n")}\n`;
}
function proseChunk(lines: number): string {
  const out: string[] = ["# Notes"];
  for (let i = 0; i < lines; i++) {
    const n = 8 + Math.floor(rnd() * 14);
    out.push(
      Array.from({ length: n }, () => (rnd() < 0.1 ? String(Math.floor(rnd() * 1000)) : word())).join(" ") +
        ".",
    );
  }
  return `${out.join("\n")}\n`;
}
function jsonChunk(records: number): string {
  const out: string[] = [];
  for (let i = 0; i < records; i++) {
    out.push(
      JSON.stringify({
        id: i,
        name: word(),
        price: Number((rnd() * 100).toFixed(2)),
        tags: [word(), word()],
      }),
    );
  }
  return `[\n${out.join(",\n")}\n]\n`;
}

/** A project with one task whose environment holds ~CORPUS_MB of CSV, Markdown and JSON (cached). */
function corpusProject(): { root: string; env: string } {
  const root = path.join(tmpdir(), `kgate-bench-corpus-${CORPUS_MB}mb`);
  const env = path.join(root, "tasks", "corpus", "environment");
  if (existsSync(path.join(root, "complete"))) return { root, env };
  rmSync(root, { recursive: true, force: true });
  const paths = projectPaths(root);
  scaffoldTask(paths, { id: "corpus", gate: "convention" });
  writeFileSync(path.join(paths.audits, "corpus.json"), JSON.stringify(AUDIT, null, 2));
  rmSync(env, { recursive: true, force: true });
  mkdirSync(env, { recursive: true });
  const fileBytes = 1024 * 1024;
  const files = Math.max(1, Math.round(CORPUS_MB));
  for (let f = 0; f < files; f++) {
    const kind = f % 3;
    let text = "";
    while (text.length < fileBytes)
      text += kind === 0 ? csvChunk(500) : kind === 1 ? proseChunk(300) : jsonChunk(300);
    // A few planted leaks so every tool has something to find.
    if (f % 10 === 0) text += "\nThe overhead surcharge is 12% compounded per BOM level.\n";
    writeFileSync(path.join(env, `part-${String(f).padStart(3, "0")}.${["csv", "md", "json"][kind]}`), text);
  }
  writeFileSync(path.join(root, "complete"), "");
  return { root, env };
}

export default async function bench(): Promise<void> {
  const node: Probe = { cmd: process.execPath, args: ["-e", "0"] };
  const kgate = (args: string[], env?: NodeJS.ProcessEnv, cwd?: string): Probe => ({
    cmd: process.execPath,
    args: [BIN, ...args],
    cwd,
    env,
    ok: [0, 1],
  });

  // (a) whole library.
  const [nodeA, library, libraryTsx] = timeAll([
    node,
    kgate(["--root", ROOT, "audit"]),
    kgate(["--root", ROOT, "audit"], { KGATE_NO_BUNDLE: "1" }),
  ]);
  const tasks = JSON.parse(
    spawnSync(process.execPath, [BIN, "--root", ROOT, "audit", "--json"], { encoding: "utf8" }).stdout,
  ).tasks.length as number;
  console.log(`\n(a) \`kgate audit\` of the task library (${tasks} tasks in ${ROOT}), median of ${RUNS}`);
  console.log("| what | wall time | ratio |\n|---|---|---|");
  console.log(row("`node -e 0` (baseline)", nodeA!, nodeA!, "node"));
  console.log(row("`kgate audit` (bundle)", library!, nodeA!, "node"));
  console.log(row("`kgate audit` (tsx, KGATE_NO_BUNDLE=1)", libraryTsx!, nodeA!, "node"));

  // (b) pre-commit path.
  const repo = stagedRepo();
  const [nodeB, gitDiff, staged, stagedTsx] = timeAll([
    node,
    { cmd: "git", args: ["diff", "--cached", "--name-only"], cwd: repo },
    kgate(["audit", "--staged"], undefined, repo),
    kgate(["audit", "--staged"], { KGATE_NO_BUNDLE: "1" }, repo),
  ]);
  console.log(`\n(b) \`kgate audit --staged\`, 200 tasks, one staged change, median of ${RUNS}`);
  console.log("| what | wall time | ratio |\n|---|---|---|");
  console.log(row("`node -e 0` (baseline)", nodeB!, nodeB!, "node"));
  console.log(row("`git diff --cached --name-only`", gitDiff!, nodeB!, "node"));
  console.log(row("`kgate audit --staged` (bundle)", staged!, nodeB!, "node"));
  console.log(row("`kgate audit --staged` (tsx)", stagedTsx!, nodeB!, "node"));
  rmSync(repo, { recursive: true, force: true });

  // (c) throughput.
  const { root, env } = corpusProject();
  const lits = path.join(root, "literals.txt");
  writeFileSync(lits, `${GREP_LITERALS.join("\n")}\n`);
  const hasRg = spawnSync("rg", ["--version"]).status === 0;
  const probes: Probe[] = [
    { cmd: "grep", args: ["-r", "-F", "-c", "-f", lits, env], ok: [0, 1] },
    { cmd: "grep", args: ["-r", "-F", "-i", "-c", "-f", lits, env], ok: [0, 1] },
    kgate(["--root", root, "audit", "corpus", "--json"]),
    kgate(["--root", root, "audit", "corpus", "--json"], { KGATE_AUDIT_THREADS: "1" }),
    kgate(["--root", root, "audit", "corpus", "--json"], { KGATE_AUDIT_THREADS: "1", KGATE_NO_WASM: "1" }),
    ...(hasRg ? [{ cmd: "rg", args: ["-F", "-c", "-f", lits, env], ok: [0, 1] }] : []),
  ];
  const [grep, grepI, audit, oneThread, noWasm, rg] = timeAll(probes, RUNS);
  const mb = CORPUS_MB;
  console.log(
    `\n(c) ~${mb} MB environment corpus (${Math.round(mb)} files: CSV, Markdown, JSON), median of ${RUNS}`,
  );
  console.log("| what | wall time | throughput | ratio to grep -F |\n|---|---|---|---|");
  const tp = (ms: number) => `${(mb / (ms / 1000)).toFixed(0)} MB/s`;
  const r = (label: string, ms: number) =>
    `| ${label} | ${ms.toFixed(0)} ms | ${tp(ms)} | ${(ms / grep!).toFixed(2)}x |`;
  console.log(r("`grep -r -F -c -f literals` (baseline)", grep!));
  console.log(r("`grep -r -F -i -c -f literals`", grepI!));
  if (rg !== undefined) console.log(r("`rg -F -c -f literals`", rg));
  console.log(r("`kgate audit` (all matchers, number forms, decoding, shingles)", audit!));
  console.log(r("`kgate audit`, one thread (KGATE_AUDIT_THREADS=1)", oneThread!));
  console.log(r("`kgate audit`, one thread, no WebAssembly (KGATE_NO_WASM=1)", noWasm!));

  // Peak memory, one run each through /usr/bin/time (when installed).
  if (existsSync("/usr/bin/time")) {
    const peak = (p: Probe) => {
      const run = spawnSync("/usr/bin/time", ["-f", "%M", p.cmd, ...p.args], {
        env: { ...process.env, ...p.env },
        maxBuffer: 1 << 30,
      });
      return Number(run.stderr.toString().trim().split("\n").at(-1)) / 1024;
    };
    const grepPeak = peak(probes[0]!);
    console.log(
      `\n(c) peak resident memory, one run each\n| what | peak RSS | ratio to grep |\n|---|---|---|`,
    );
    const m = (label: string, mb: number) =>
      `| ${label} | ${mb.toFixed(0)} MB | ${(mb / grepPeak).toFixed(1)}x |`;
    console.log(m("`grep -r -F -c -f literals`", grepPeak));
    console.log(m("`node -e 0`", peak(node)));
    console.log(m("`kgate audit`", peak(probes[2]!)));
    console.log(m("`kgate audit`, one thread", peak(probes[3]!)));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await bench();
