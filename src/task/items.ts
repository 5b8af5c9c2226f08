// Item pools: single-turn questions with a checker (items/<pool>.jsonl), the unit the triage and exam
// protocols use beside gated tasks; loaded with line-precise errors, checked deterministically.
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/** How an item's answer is checked against a reply. */
export const ItemChecker = z.enum(["exact", "number", "choice"]);

export const Item = z
  .object({
    id: z.string().min(1).max(200),
    prompt: z.string().min(1),
    /** The reference answer: a string (exact, choice) or a number (number). */
    answer: z.union([z.string(), z.number()]),
    checker: ItemChecker.default("exact"),
    /** Absolute tolerance of the `number` checker (default 1e-4, as tasks' numbers). */
    tolerance: z.number().nonnegative().default(1e-4),
    /** The options of a `choice` item (e.g. ["A", "B", "C", "D"]); the answer is one of them. */
    choices: z.array(z.string().min(1)).min(2).optional(),
    /** No reply can be correct (the triage protocol's injected unsolvable units). */
    unsolvable: z.boolean().default(false),
    /** Declared difficulty, any scale (higher is harder); used by exam point schemes and orderings. */
    difficulty: z.number().optional(),
    /** The unit's value (triage) or points (exam) when a protocol does not derive them. */
    value: z.number().positive().optional(),
  })
  .strict()
  .superRefine((item, ctx) => {
    if (item.checker === "number" && typeof item.answer !== "number" && !Number.isFinite(Number(item.answer)))
      ctx.addIssue({ code: "custom", path: ["answer"], message: "a `number` item needs a numeric answer" });
    if (item.checker === "choice") {
      if (!item.choices)
        ctx.addIssue({ code: "custom", path: ["choices"], message: "a `choice` item needs choices" });
      else if (!item.choices.includes(String(item.answer)))
        ctx.addIssue({ code: "custom", path: ["answer"], message: "the answer must be one of the choices" });
    }
  });

export type Item = z.infer<typeof Item>;
export type ItemChecker = z.infer<typeof ItemChecker>;

export interface ItemPool {
  name: string;
  file: string;
  items: Item[];
}

/** A line of an item file that could not be read. */
export class ItemPoolError extends Error {
  override name = "ItemPoolError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly field: string,
    detail: string,
  ) {
    super(`${file}:${line}${field ? ` (${field})` : ""}: ${detail}`);
  }
}

/** items/<pool>.jsonl under the project root. */
export function itemPoolFile(root: string, pool: string): string {
  return path.join(root, "items", `${pool}.jsonl`);
}

/** Parses the text of an item file: one JSON object a line; blank lines and `//` lines are skipped. */
export function parseItemPool(text: string, file: string): Item[] {
  const items: Item[] = [];
  const seen = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("//")) return;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      throw new ItemPoolError(file, line, "", `not JSON: ${(err as Error).message}`);
    }
    const parsed = Item.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ItemPoolError(file, line, issue.path.join("."), issue.message);
    }
    const earlier = seen.get(parsed.data.id);
    if (earlier !== undefined)
      throw new ItemPoolError(file, line, "id", `"${parsed.data.id}" is already the id of line ${earlier}`);
    seen.set(parsed.data.id, line);
    items.push(parsed.data);
  });
  if (items.length === 0) throw new ItemPoolError(file, 1, "", "the pool holds no item");
  return items;
}

/** Loads items/<pool>.jsonl, or a path to a .jsonl file. */
export function loadItemPool(root: string, poolOrFile: string): ItemPool {
  const file = poolOrFile.endsWith(".jsonl")
    ? path.resolve(root, poolOrFile)
    : itemPoolFile(root, poolOrFile);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ItemPoolError(file, 0, "", `cannot read the item file: ${(err as Error).message}`);
  }
  return { name: path.basename(file, ".jsonl"), file, items: parseItemPool(text, file) };
}

const NUMBER = /[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi;

/** The last number written in a reply (thousands separators dropped), or null. */
export function lastNumber(reply: string): number | null {
  const found = reply.match(NUMBER);
  if (!found) return null;
  const value = Number(found[found.length - 1]!.replace(/,/g, ""));
  return Number.isFinite(value) ? value : null;
}

function normalised(text: string): string {
  return text
    .normalize("NFKC")
    .trim()
    .replace(/\s+/g, " ")
    .replace(/[.\s]+$/, "")
    .toLowerCase();
}

/** Is `reply` (the extracted answer text) correct for `item`? Unsolvable items are never correct. */
export function checkItemAnswer(item: Item, reply: string): boolean {
  if (item.unsolvable) return false;
  switch (item.checker) {
    case "number": {
      const got = lastNumber(reply);
      return got !== null && Math.abs(got - Number(item.answer)) <= item.tolerance;
    }
    case "choice": {
      const options = item.choices ?? [];
      const text = reply.trim();
      // The reply names exactly one option as a whole word (e.g. "B", "(B)", "Answer: B").
      const named = options.filter((o) =>
        new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegex(o)}($|[^\\p{L}\\p{N}])`, "u").test(text),
      );
      return named.length === 1 && named[0] === String(item.answer);
    }
    default:
      return normalised(reply) === normalised(String(item.answer));
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
