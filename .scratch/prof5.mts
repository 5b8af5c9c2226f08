import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { projectPaths } from "../src/project.ts";
import { loadValidTask, scaffoldTask, sha256 } from "../src/task/index.ts";
import { runTrial, ZERO_USAGE } from "../src/trial/index.ts";
const root = mkdtempSync(path.join(tmpdir(), "kgate-prof-"));
const paths = projectPaths(root);
scaffoldTask(paths, { id: "bench", gate: "convention" });
for (let i = 0; i < 10; i++) { const f = path.join(paths.tasks, "bench", "environment", `data/part-${i}.txt`); mkdirSync(path.dirname(f), { recursive: true }); writeFileSync(f, `${i}`.repeat(10240)); }
const specFile = path.join(paths.tasks, "bench", "task.json");
const spec = JSON.parse(readFileSync(specFile, "utf8")); spec.outputs = [{ path: "data/part-0.txt", format: "text" }]; writeFileSync(specFile, JSON.stringify(spec));
const task = loadValidTask(paths, "bench");
const agent = { name: "true", harness: "bench", model: null, digest: sha256("x"), async run(ctx: any) { await ctx.sandbox.exec(["true"]); return { stopReason: "finish" as const, usage: ZERO_USAGE }; } };
const tot: number[] = []; const ph: Record<string, number[]> = {};
for (let i = 0; i < 15; i++) {
  const t0 = performance.now();
  const r = await runTrial({ paths, task, condition: "+A", agent, runId: "p", runDir: path.join(paths.runs, "p"), index: i, image: "kgate-sandbox:89645fea0212" });
  tot.push(performance.now() - t0);
  for (const [k, v] of Object.entries(r.phases)) (ph[k] ??= []).push(v!.durationMs);
}
const med = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const phs = Object.fromEntries(Object.entries(ph).map(([k, v]) => [k, med(v).toFixed(0)]));
console.log("total", med(tot).toFixed(0), phs, "sum of phases", Object.values(ph).reduce((a, v) => a + med(v), 0).toFixed(0));
