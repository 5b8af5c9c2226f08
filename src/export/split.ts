// The split of an export (`--split eval=0.2[,test=0.1] --seed <n>`): whole tasks go to one side, so
// that every condition and variant of a task is on the side of its task (a model evaluated on a
// task's -A row must not have trained on its +A row). Tasks are ordered by sha256(seed, id), and
// each named split takes round(fraction x tasks) of them in turn; the rest are `train`.
import { createHash } from "node:crypto";
import { z } from "zod";

export const TRAIN = "train";

export const SplitSpec = z.array(z.object({ name: z.string(), fraction: z.number().gt(0).lt(1) }));
export type SplitSpec = z.infer<typeof SplitSpec>;

const SPLIT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** `eval=0.2,test=0.1`; an error names the part and what it should be. */
export function parseSplit(text: string): SplitSpec {
  const parts = text.split(",").map((part) => {
    const match = /^([^=]+)=([0-9.]+)$/.exec(part.trim());
    const fraction = match ? Number(match[2]) : Number.NaN;
    if (!match || !SPLIT_NAME.test(match[1]!) || !(fraction > 0 && fraction < 1)) {
      throw new Error(
        `--split ${text}: "${part}" should be <name>=<fraction>, e.g. eval=0.2 (a lower-case name, 0 < fraction < 1)`,
      );
    }
    if (match[1] === TRAIN) throw new Error(`--split ${text}: "${TRAIN}" is what the other splits leave`);
    return { name: match[1]!, fraction };
  });
  const names = new Set(parts.map((p) => p.name));
  if (names.size !== parts.length) throw new Error(`--split ${text}: a split is named twice`);
  if (parts.reduce((sum, p) => sum + p.fraction, 0) >= 1)
    throw new Error(`--split ${text}: the fractions leave nothing to train on`);
  return parts;
}

/** The split of each task: the named splits in order take their share of the seeded order. */
export function assignSplits(tasks: readonly string[], spec: SplitSpec, seed: number): Map<string, string> {
  const order = [...tasks].sort((a, b) => {
    const key = (id: string) => createHash("sha256").update(`${seed}\u0000${id}`).digest("hex");
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  });
  const assigned = new Map<string, string>();
  let next = 0;
  for (const { name, fraction } of spec) {
    for (const id of order.slice(next, next + Math.round(fraction * tasks.length))) assigned.set(id, name);
    next += Math.round(fraction * tasks.length);
  }
  for (const id of order.slice(next)) assigned.set(id, TRAIN);
  return assigned;
}
