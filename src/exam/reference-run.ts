// The reference run of an item pool: every item alone (a one-question exam at a high budget), k
// times; its accuracy and mean generated tokens, appended as one JSON line per item as it finishes.
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import type { Item } from "../task/index.ts";
import type { ItemExamContext } from "./item-exam.ts";
import { runItemExam } from "./item-exam.ts";
import { FIXED_POINTS } from "./points.ts";

export interface ReferenceRunResult {
  written: number;
  failed: Array<{ id: string; message: string }>;
}

/** Runs each item `trials` times alone; an item whose calls fail is reported and left out. */
export async function runItemReference(
  items: readonly Item[],
  trials: number,
  ctx: ItemExamContext,
  file: string,
  log?: (line: string) => void,
): Promise<ReferenceRunResult> {
  if (existsSync(file)) throw new Error(`${file} exists: a reference run writes a new file`);
  mkdirSync(path.dirname(file), { recursive: true });
  const byId = new Map(items.map((item) => [item.id, item]));
  const result: ReferenceRunResult = { written: 0, failed: [] };
  for (const [i, item] of items.entries()) {
    let correct = 0;
    let tokens = 0;
    try {
      for (let k = 0; k < trials; k++) {
        const run = await runItemExam(
          {
            key: `reference-${item.id}-${k}`,
            n: 1,
            exam: k,
            scheme: "fixed",
            order: "random",
            prompt: "baseline",
            units: [{ id: item.id, position: 1, points: FIXED_POINTS, difficulty: item.difficulty ?? null }],
          },
          byId,
          ctx,
        );
        if (run.outcomes[0]!.correct) correct += 1;
        tokens += run.usage.outputTokens;
      }
    } catch (err) {
      result.failed.push({ id: item.id, message: (err as Error).message });
      log?.(`[${i + 1}/${items.length}] ${item.id}: error: ${(err as Error).message}`);
      continue;
    }
    const line = { id: item.id, accuracy: correct / trials, tokens: tokens / trials };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    result.written += 1;
    log?.(
      `[${i + 1}/${items.length}] ${item.id}: accuracy ${line.accuracy.toFixed(2)}, ${line.tokens.toFixed(0)} tokens`,
    );
  }
  return result;
}
