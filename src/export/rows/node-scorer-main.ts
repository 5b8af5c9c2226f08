// The program an export of rows ships as kgate_verify.mjs (bundled by esbuild; never imported by
// kgate itself): reads {"reply", "ground_truth"} lines on stdin and prints one verdict line each,
// {"passed", "partial", "criteria", "reason"}, by kgate's own verification (verifyTrial on the
// reply's fenced blocks, the reference solved from the task's bundled data under the row's
// reference conventions). The Python module calls it for rows whose outputs only code can judge.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type LoadedTask, parseInlineReply } from "../../task/index.ts";
import { type ConventionSet, verifyTrial } from "../../verify/index.ts";
import { alteredData, type BundleFacts, bundledTask } from "../bundled-task.ts";
import { GroundTruth } from "./ground-truth.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));

interface Bundle {
  task: LoadedTask;
  altered: string[];
}

const bundles = new Map<string, Bundle>();

function bundleAt(relative: string): Bundle {
  let bundle = bundles.get(relative);
  if (!bundle) {
    const dir = path.resolve(HERE, relative);
    if (path.relative(HERE, dir).startsWith("..")) throw new Error(`bundle ${relative} is outside ${HERE}`);
    const facts = JSON.parse(readFileSync(path.join(dir, "bundle.json"), "utf8")) as BundleFacts;
    const task = bundledTask(dir, facts);
    bundle = { task, altered: alteredData(task, `${relative}/environment`) };
    bundles.set(relative, bundle);
  }
  return bundle;
}

async function scoreLine(line: string): Promise<string> {
  const item = JSON.parse(line) as { reply: string; ground_truth: unknown };
  const raw = typeof item.ground_truth === "string" ? JSON.parse(item.ground_truth) : item.ground_truth;
  const truth = GroundTruth.parse(raw);
  const { task, altered } = bundleAt(truth.bundle ?? "");
  if (altered.length > 0) throw new Error(`the bundled data differ from bundle.json: ${altered.join(", ")}`);
  const outputs = parseInlineReply(task, item.reply);
  const verdict = await verifyTrial(task, outputs, truth.reference as ConventionSet);
  if (verdict.status === "unverified") throw new Error(`${task.id}: unverified: ${verdict.reason}`);
  const criteria = verdict.criteria.map((c) => ({ name: c.name, passed: c.passed, weight: c.weight ?? 1 }));
  return JSON.stringify({
    passed: verdict.status === "pass",
    partial: verdict.score,
    criteria,
    reason: verdict.reason ?? null,
  });
}

export async function main(_argv: string[]): Promise<number> {
  const input = readFileSync(0, "utf8");
  for (const line of input.split("\n")) {
    if (line.trim()) process.stdout.write(`${await scoreLine(line)}\n`);
  }
  return 0;
}
