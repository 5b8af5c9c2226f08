// Exams do not serialise what waits on the model: `kgate exam` on an item pool (in process, the real
// Anthropic SDK client) against a scripted loopback model that answers every call after 500 ms (two
// calls an exam), 12 exams at concurrency 1, 2 and 4; exams per minute and the ratio to concurrency 1
// measured in the same run (ideal: the concurrency itself, as the model's wait dominates).
//   npm run bench exam      or      npx tsx bench/exam.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { pathToFileURL } from "node:url";
import { run as exam } from "../src/commands/exam.ts";
import { projectPaths } from "../src/project.ts";
import { inOrderExamTaker } from "../test/support/exam-model.ts";
import { startModelServer } from "../test/support/model-server.ts";

const CALL_DELAY_MS = 500;
const KEY_ENV = "KGATE_BENCH_EXAM_KEY";
const LEVELS = [1, 2, 4];
// sizes 3 and 4, 6 base exams each: 12 exams of 2 calls
const EXAMS = 12;

export default async function examBench(): Promise<void> {
  const taker = inOrderExamTaker();
  const server = await startModelServer((request) => ({ ...taker(request), delayMs: CALL_DELAY_MS }));
  const dir = mkdtempSync(path.join(tmpdir(), "kgate-bench-exam-"));
  const paths = projectPaths(dir);
  mkdirSync(path.join(dir, "items"));
  const items = Array.from({ length: 8 }, (_, i) =>
    JSON.stringify({
      id: `sum-${i + 1}`,
      prompt: `What is ${i + 1} + ${10 * (i + 1)}?`,
      answer: 11 * (i + 1),
    }),
  );
  writeFileSync(path.join(dir, "items", "arith.jsonl"), `${items.join("\n")}\n`);
  writeFileSync(
    paths.config,
    JSON.stringify({
      agents: {
        examiner: {
          harness: "builtin",
          provider: "anthropic",
          model: "scripted-examiner",
          baseUrl: server.anthropicUrl,
          apiKeyEnv: KEY_ENV,
        },
      },
    }),
  );
  process.env[KEY_ENV] = "sk-bench";
  console.log(
    `scripted model: 2 calls an exam, ${CALL_DELAY_MS} ms each; ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log("| concurrency | exams | wall | exams / min | vs concurrency 1 |");
  console.log("|---|---|---|---|---|");
  const once = (runId: string, n: string, exams: string, concurrency: number) =>
    exam({ paths, stdout: new PassThrough().resume(), stderr: new PassThrough().resume() }, "arith", {
      agent: "examiner",
      n,
      exams,
      scheme: "fixed",
      order: "random",
      prompt: "baseline",
      budget: "400",
      seed: "2",
      trials: "1",
      runId,
      concurrency,
    });
  let base = 0;
  try {
    // one exam first, unmeasured: module loading and the first connection are not concurrency's
    await once("bench-exam-warm-up", "3", "1", 1);
    for (const concurrency of LEVELS) {
      const started = performance.now();
      const code = await once(`bench-exam-c${concurrency}`, "3,4", "6", concurrency);
      const wall = (performance.now() - started) / 1000;
      if (code !== 0) throw new Error(`kgate exam at concurrency ${concurrency} exited ${code}`);
      const rate = (EXAMS / wall) * 60;
      if (concurrency === 1) base = rate;
      console.log(
        `| ${concurrency} | ${EXAMS} | ${wall.toFixed(2)} s | ${rate.toFixed(1)} | ${(rate / base).toFixed(2)}x |`,
      );
    }
  } finally {
    delete process.env[KEY_ENV];
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await examBench();
