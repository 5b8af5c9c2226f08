// Effort attribution: which unit each generated token worked on. Items: the reasoning trace split at
// question markers, each token to the most recent marker; tasks: each model turn's output tokens to
// the task folders its tool calls touch, split evenly. Then effort t_i, solving order o_i, work set.

/** A question marker: "Q3", "Question 3", "question 12". */
export const QUESTION_MARKER = /\bQ(?:uestion)?\s*(\d+)\b/gi;

/** Text pieces counted as tokens in a trace: runs of letters/digits, or one other visible character. */
const PIECE = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;

export interface Attribution {
  /** t_i by 0-based position index: tokens attributed to unit i. */
  tokens: number[];
  /** o_i: token-weighted mean place of unit i's tokens in the whole stream, in (0, 1); null when t_i = 0. */
  order: Array<number | null>;
  /** Tokens before any marker (items) or of turns touching no task folder (tasks). */
  unattributed: number;
  /** Every token of the stream (attributed or not). */
  total: number;
}

interface Span {
  /** 0-based index of the unit, or null when unattributed. */
  unit: number | null;
  /** Where the span starts in the stream, and its size, in tokens. */
  start: number;
  size: number;
}

/** Sums spans into t_i and o_i (the place of a span is its midpoint). */
function fromSpans(spans: readonly Span[], count: number, total: number): Attribution {
  const tokens = new Array<number>(count).fill(0);
  const weighted = new Array<number>(count).fill(0);
  let unattributed = 0;
  for (const s of spans) {
    if (s.unit === null) {
      unattributed += s.size;
      continue;
    }
    tokens[s.unit]! += s.size;
    weighted[s.unit]! += s.size * ((s.start + s.size / 2) / total);
  }
  const order = tokens.map((t, i) => (t > 0 ? weighted[i]! / t : null));
  return { tokens, order, unattributed, total };
}

/**
 * Attributes an item exam's reasoning trace over `count` questions. Pieces of text stand for tokens;
 * when the provider reported the turn's output tokens, every piece is scaled to carry an equal share
 * of them. Markers naming no question of the exam (Q0, Q99) do not move the attribution.
 */
export function attributeTrace(
  trace: string,
  count: number,
  reportedTokens: number | null = null,
): Attribution {
  const markers: Array<{ at: number; unit: number }> = [];
  for (const m of trace.matchAll(QUESTION_MARKER)) {
    const position = Number(m[1]);
    if (position >= 1 && position <= count) markers.push({ at: m.index, unit: position - 1 });
  }
  const pieces = [...trace.matchAll(PIECE)].map((m) => m.index);
  const scale = reportedTokens !== null && pieces.length > 0 ? reportedTokens / pieces.length : 1;
  const spans: Span[] = [];
  let next = 0;
  let current: number | null = null;
  pieces.forEach((at, i) => {
    while (next < markers.length && markers[next]!.at <= at) current = markers[next++]!.unit;
    spans.push({ unit: current, start: i * scale, size: scale });
  });
  return fromSpans(spans, count, pieces.length * scale);
}

/** One model turn of a task exam: its output tokens and the task folders its tool calls touched. */
export interface TurnTouch {
  outputTokens: number;
  /** 0-based indices of the task folders touched (any order, duplicates ignored). */
  units: readonly number[];
}

/** Attributes a task exam's turns: a turn touching k folders gives each 1/k of its output tokens. */
export function attributeTurns(turns: readonly TurnTouch[], count: number): Attribution {
  const spans: Span[] = [];
  let at = 0;
  for (const turn of turns) {
    const units = [...new Set(turn.units)];
    if (units.length === 0) spans.push({ unit: null, start: at, size: turn.outputTokens });
    // a turn's share of the stream is one span; each touched folder gets an equal slice of it
    const slice = turn.outputTokens / Math.max(1, units.length);
    units.forEach((unit, k) => {
      spans.push({ unit, start: at + k * slice, size: slice });
    });
    at += turn.outputTokens;
  }
  return fromSpans(spans, count, at);
}

/** Which units a tool call's text touches: folders named like `task-3` as whole path segments. */
export function foldersTouched(text: string, folders: readonly string[]): number[] {
  const touched: number[] = [];
  folders.forEach((folder, i) => {
    const escaped = folder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`(^|[^\\w-])${escaped}(?![\\w-])`).test(text)) touched.push(i);
  });
  return touched;
}

/** The work set W = {i : t_i >= tau} (0-based indices), coverage |W| / N and the zero-token rate. */
export function workSet(
  tokens: readonly number[],
  tau: number,
): { work: number[]; coverage: number; zeroRate: number } {
  const work = tokens.flatMap((t, i) => (t >= tau ? [i] : []));
  const n = tokens.length;
  return {
    work,
    coverage: n === 0 ? 0 : work.length / n,
    zeroRate: n === 0 ? 0 : tokens.filter((t) => t === 0).length / n,
  };
}

/** Default tau of the work set, in generated tokens (about one sentence of work on a unit). */
export const DEFAULT_TAU = 16;
