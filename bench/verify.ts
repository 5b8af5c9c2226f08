// Benchmark: verifyTrial on a 100,000-row CSV output against its reference (target: < 1 s and
// < 200 MB RSS), beside a same-run baseline: a plain parse of the same file (read, split into
// lines and fields, numbers converted). Each phase runs in a fresh process so its peak RSS is its own.
//   npm run bench verify      or      npx tsx bench/verify.ts
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { projectPaths } from "../src/project.ts";
import { loadValidTask, scaffoldTask, verifyImportFrom } from "../src/task/index.ts";
import { loadVerifier, renderOutput, solveRaw, verifyTrial } from "../src/verify/index.ts";

const ROWS = 100_000;
const OUTPUT = "output/rows.csv";

function verifierSource(verifyImport: string): string {
  return `import { defineVerifier } from "${verifyImport}";
export default defineVerifier<{ rate: number }>({
  conventions: { artefact: { rate: 0.12 }, default: { rate: 0 }, variants: { perturbed: { rate: 0.15 } } },
  solve(files, c) {
    const n = Number(files["size.txt"]);
    const rows = [];
    for (let i = 1; i <= n; i++) {
      const quantity = ((i * 7919) % 97) + 1;
      const price = ((i * 104729) % 10000) / 100;
      rows.push({ item: "I" + String(i).padStart(6, "0"), quantity, value: Math.round(quantity * price * (1 + c.rate) * 1e4) / 1e4 });
    }
    return { "${OUTPUT}": rows };
  },
});
`;
}

/** A throw-away project with one task whose answer has ROWS rows, and the outputs to verify. */
async function setUp(): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-"));
  const paths = projectPaths(root);
  scaffoldTask(paths, { id: "rows", gate: "convention" });
  const taskFile = path.join(paths.tasks, "rows", "task.json");
  const spec = JSON.parse(readFileSync(taskFile, "utf8"));
  spec.outputs = [
    {
      path: OUTPUT,
      format: "csv",
      columns: [
        { name: "item", type: "string" },
        { name: "quantity", type: "integer" },
        { name: "value", type: "number" },
      ],
      key: ["item"],
      maxBytes: 64 * 1024 * 1024,
    },
  ];
  writeFileSync(taskFile, JSON.stringify(spec));
  writeFileSync(path.join(paths.tasks, "rows", "environment", "size.txt"), String(ROWS));
  writeFileSync(path.join(paths.verifiers, "rows.ts"), verifierSource(verifyImportFrom(paths.verifiers)));
  const task = loadValidTask(paths, "rows");
  const loaded = await loadVerifier(task);
  const output = task.spec.outputs[0]!;
  for (const [name, set] of [
    ["pass.csv", "artefact"],
    ["fail.csv", "default"],
  ] as const) {
    const rows = (solveRaw(task, loaded, set)[OUTPUT] as unknown[]).reverse();
    writeFileSync(path.join(root, name), renderOutput(output, rows, loaded));
  }
  return root;
}

interface PhaseResult {
  phase: string;
  /** Wall-clock milliseconds of each repetition (first = cold). */
  ms: number[];
  /** CPU milliseconds (user + system) of each repetition: steadier than wall time on a busy machine. */
  cpuMs: number[];
  maxRssMb: number;
}

/** One phase in this process: what a child runs. */
async function runPhase(phase: string, root: string): Promise<PhaseResult> {
  const task = loadValidTask(projectPaths(root), "rows");
  const ms: number[] = [];
  const cpuMs: number[] = [];
  const time = async (fn: () => unknown) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await fn();
    ms.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
  };
  if (phase === "parse") {
    await time(() => {
      // The least any CSV check does: decode, split lines and fields, convert the numbers.
      const lines = readFileSync(path.join(root, "pass.csv"), "utf8").split("\n");
      let sum = 0;
      for (let i = 1; i < lines.length; i++) {
        const fields = lines[i]!.split(",");
        if (fields.length === 3) sum += Number(fields[1]) + Number(fields[2]);
      }
      return sum;
    });
  } else if (phase === "pass" || phase === "fail") {
    const bytes = readFileSync(path.join(root, `${phase}.csv`));
    for (let i = 0; i < 2; i++) {
      await time(async () => {
        const verdict = await verifyTrial(task, [{ path: OUTPUT, status: "collected", bytes }]);
        const expected = phase === "pass" ? "pass" : "fail";
        if (
          verdict.status !== expected ||
          (phase === "fail" && verdict.attribution !== "default-convention")
        ) {
          throw new Error(`unexpected verdict: ${JSON.stringify(verdict).slice(0, 300)}`);
        }
      });
    }
  }
  return { phase, ms, cpuMs, maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

function child(phase: string, root: string): PhaseResult {
  const run = spawnSync(process.execPath, ["--import", "tsx", import.meta.filename, "--phase", phase, root], {
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`phase ${phase} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as PhaseResult;
}

export default async function bench(): Promise<void> {
  const root = await setUp();
  try {
    const size = readFileSync(path.join(root, "pass.csv")).length;
    const idle = child("idle", root);
    const parse = child("parse", root);
    const pass = child("pass", root);
    const fail = child("fail", root);
    const base = parse.cpuMs[0]!;
    const line = (label: string, result: PhaseResult, i: number) =>
      `${label.padEnd(46)} ${result.ms[i]!.toFixed(0).padStart(6)} ms wall ${result.cpuMs[i]!.toFixed(0).padStart(6)} ms CPU ${(result.cpuMs[i]! / base).toFixed(1).padStart(5)}x   peak RSS ${result.maxRssMb.toFixed(0).padStart(4)} MB (+${(result.maxRssMb - idle.maxRssMb).toFixed(0)} over idle)\n`;
    process.stdout.write(
      `verify a ${ROWS.toLocaleString("en")}-row CSV (${(size / 1e6).toFixed(1)} MB, 3 columns, keyed, rows reversed); load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} CPUs\n`,
    );
    process.stdout.write(line("baseline: plain parse of the same file", parse, 0));
    process.stdout.write(line("verifyTrial, passing output, cold", pass, 0));
    process.stdout.write(line("verifyTrial, passing output, warm", pass, 1));
    process.stdout.write(line("verifyTrial, default answer + attribution, cold", fail, 0));
    process.stdout.write(line("verifyTrial, default answer + attribution, warm", fail, 1));
    process.stdout.write(`idle process (library and task loaded): peak RSS ${idle.maxRssMb.toFixed(0)} MB\n`);
    process.stdout.write(
      "ratio: CPU time over the baseline's; cold: first call in a process (imports the verifier through tsx, solves the references); warm: references cached\n",
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const phaseIndex = process.argv.indexOf("--phase");
if (phaseIndex > 0) {
  const result = await runPhase(process.argv[phaseIndex + 1]!, process.argv[phaseIndex + 2]!);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await bench();
}
