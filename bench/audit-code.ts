// Benchmark of the leak audit's leaked-code pass (src/audit/code-pass.ts): the audit of an
// environment of code files (KGATE_BENCH_CODE_MB, default 8 MB of Python, JavaScript and shell)
// with an artefact that carries code blocks, against the same audit with an artefact whose code
// blocks are removed (the pass then compares nothing): the ratio is the pass's cost. In process,
// one thread, interleaved rounds, medians.
//   npm run bench audit-code      or      npx tsx bench/audit-code.ts
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { auditTaskById } from "../src/audit/index.ts";
import { projectPaths } from "../src/project.ts";
import { scaffoldTask } from "../src/task/index.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const CORPUS = path.join(ROOT, "test", "fixtures", "leaked-code");
const MB = Number(process.env.KGATE_BENCH_CODE_MB ?? 8);
const ROUNDS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** A project with the corpus' clean code renamed over and over into files of about 100 KB. */
function project(artefact: string): string {
  const root = mkdtempSync(path.join(tmpdir(), "kgate-bench-code-"));
  const paths = projectPaths(root);
  scaffoldTask(paths, { id: "code", gate: "operator" });
  writeFileSync(path.join(paths.artefacts, "code", "artefact.md"), artefact);
  writeFileSync(path.join(paths.audits, "code.json"), '{ "items": [], "allowlist": [] }\n');
  const env = path.join(paths.tasks, "code", "environment");
  const sources = readdirSync(path.join(CORPUS, "clean")).map((name) => ({
    ext: path.extname(name),
    text: readFileSync(path.join(CORPUS, "clean", name), "utf8"),
  }));
  mkdirSync(path.join(env, "tools"), { recursive: true });
  let bytes = 0;
  for (let f = 0; bytes < MB * 1e6; f++) {
    const { ext, text } = sources[f % sources.length]!;
    const parts: string[] = [];
    for (let size = 0, k = 0; size < 100_000; k++) {
      const part = text.replace(/\b([a-z_]{3,})\b/g, (w) => `${w}_${f}_${k}`);
      parts.push(part);
      size += part.length;
    }
    const content = parts.join("\n");
    writeFileSync(path.join(env, "tools", `module_${f}${ext}`), content);
    bytes += content.length;
  }
  return root;
}

export default async function bench(): Promise<void> {
  process.env.KGATE_AUDIT_THREADS = "1";
  const artefact = readFileSync(path.join(CORPUS, "artefact.md"), "utf8");
  // The same artefact without its indented code blocks: the code pass has nothing to compare.
  const noCode = artefact.replace(/^ {4}.*\n/gm, "");
  const withBlocks = project(artefact);
  const without = project(noCode);
  const time = async (root: string) => {
    const started = performance.now();
    const result = await auditTaskById(projectPaths(root), "code");
    if (result.status === "invalid") throw new Error(JSON.stringify(result.problems));
    return performance.now() - started;
  };
  const a: number[] = [];
  const b: number[] = [];
  await time(withBlocks);
  await time(without);
  for (let round = 0; round < ROUNDS; round++) {
    a.push(await time(withBlocks));
    b.push(await time(without));
  }
  const ma = median(a);
  const mb = median(b);
  process.stdout.write(
    `| measurement | median | same-run baseline | ratio |\n|---|---|---|---|\n| audit of ${MB} MB of code files, artefact with code blocks | ${ma.toFixed(0)} ms | the same, artefact without code blocks ${mb.toFixed(0)} ms | ${(ma / mb).toFixed(2)}x |\n`,
  );
  rmSync(withBlocks, { recursive: true, force: true });
  rmSync(without, { recursive: true, force: true });
}
