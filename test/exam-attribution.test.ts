// Effort attribution on hand-built inputs: an item trace with a marker-free preamble, a back-reference
// and an out-of-range marker; task turns touching none, one and two task folders; the work set.
import { describe, expect, it } from "vitest";
import { attributeTrace, attributeTurns, foldersTouched, turnTouches, workSet } from "../src/exam/index.ts";

// Pieces (letter/digit runs, or one other visible character), numbered from 0:
//   0-4   "Plan" ":" "start" "easy" "."                          preamble (no marker yet)
//   5-13  "Question" "1" ":" "2" "+" "2" "=" "4" "."              Q1
//   14-15 "Q3" "uses"                                             Q3
//   16-24 "Q1" "," "so" "4" "*" "3" "=" "12" "."                  back to Q1 (a back-reference)
//   25-27 "Q9" "no" "."                                           Q9 is no question of 3: still Q1
const TRACE = "Plan: start easy. Question 1: 2+2=4. Q3 uses Q1, so 4*3=12. Q9 no.";

describe("attributeTrace", () => {
  it("gives each piece to the most recent marker and counts the preamble apart", () => {
    const a = attributeTrace(TRACE, 3);
    // Q1: 9 (5-13) + 12 (16-27) = 21; Q2: 0; Q3: 2; preamble 5; total 28
    expect(a.tokens).toEqual([21, 0, 2]);
    expect(a.unattributed).toBe(5);
    expect(a.total).toBe(28);
  });

  it("places each unit by the token-weighted mean of its pieces' midpoints, normalised", () => {
    const a = attributeTrace(TRACE, 3);
    // piece i sits at (i + 0.5) / 28. Q3: (14.5 + 15.5) / 2 / 28 = 15 / 28.
    // Q1: sum over 5..13 of (i + 0.5) = 81 + 4.5 = 85.5; over 16..27 = 258 + 6 = 264; (85.5 + 264) / 21 / 28
    expect(a.order[2]).toBeCloseTo(15 / 28, 12);
    expect(a.order[0]).toBeCloseTo(349.5 / 21 / 28, 12);
    expect(a.order[1]).toBeNull();
  });

  it("scales pieces to the provider's token count when it is known", () => {
    // 56 reported tokens over 28 pieces: 2 tokens a piece; the places do not change
    const a = attributeTrace(TRACE, 3, 56);
    expect(a.tokens).toEqual([42, 0, 4]);
    expect(a.unattributed).toBe(10);
    expect(a.order[2]).toBeCloseTo(15 / 28, 12);
  });

  it("counts a trace without any marker as preamble only", () => {
    const a = attributeTrace("I will not answer anything", 2);
    expect(a.tokens).toEqual([0, 0]);
    expect(a.unattributed).toBe(5);
  });
});

describe("attributeTurns", () => {
  it("splits a turn's output tokens evenly over the folders it touches; untouched turns count apart", () => {
    const a = attributeTurns(
      [
        { outputTokens: 100, units: [] }, // stream 0-100: unattributed
        { outputTokens: 60, units: [0] }, // 100-160: unit 0
        { outputTokens: 40, units: [0, 1, 1] }, // 160-180: unit 0, 180-200: unit 1 (duplicate ignored)
        { outputTokens: 30, units: [2] }, // 200-230: unit 2
      ],
      3,
    );
    expect(a.tokens).toEqual([80, 20, 30]);
    expect(a.unattributed).toBe(100);
    expect(a.total).toBe(230);
    // unit 0: (60 x 130 + 20 x 170) / 80 / 230; unit 1: 190 / 230; unit 2: 215 / 230
    expect(a.order[0]).toBeCloseTo((60 * 130 + 20 * 170) / 80 / 230, 12);
    expect(a.order[1]).toBeCloseTo(190 / 230, 12);
    expect(a.order[2]).toBeCloseTo(215 / 230, 12);
  });
});

describe("foldersTouched", () => {
  const folders = Array.from({ length: 10 }, (_, i) => `task-${i + 1}`);
  it("finds folders as whole path segments (task-1 is not task-10 nor subtask-1)", () => {
    expect(foldersTouched("cat task-1/data.csv > task-10/out.txt", folders)).toEqual([0, 9]);
    expect(foldersTouched("ls subtask-1 task-12", folders)).toEqual([]);
    expect(foldersTouched("task-3", folders)).toEqual([2]);
  });
});

describe("workSet", () => {
  it("is {i : t_i >= tau}, with coverage |W| / N and the zero-token rate", () => {
    // t = 21, 0, 2, 3 with tau 3: W = {0, 3}; coverage 2/4; one zero of four
    expect(workSet([21, 0, 2, 3], 3)).toEqual({ work: [0, 3], coverage: 0.5, zeroRate: 0.25 });
  });
});

describe("turnTouches", () => {
  it("reads each turn's output tokens and the folders its tool calls name, ignoring malformed events", () => {
    const folders = ["task-1", "task-2"];
    const touches = turnTouches(
      [
        { type: "note", kind: "start" },
        { type: "model", turn: 1, usage: { input: 900, output: 40 } },
        {
          type: "tool-call",
          turn: 1,
          name: "bash",
          input: { command: "cat task-2/INSTRUCTION.md task-1/a.csv" },
        },
        { type: "model", turn: 2, usage: { output: "lots" } }, // not a number: 0 tokens
        { type: "tool-call", turn: 2, name: "write_file", input: "not an object" },
        { type: "model", turn: 3, usage: { output: 30 } },
        { type: "tool-call", turn: 3, name: "read_file", input: { path: "task-2/data.csv" } },
      ],
      folders,
    );
    expect(touches).toEqual([
      { outputTokens: 40, units: [0, 1] },
      { outputTokens: 0, units: [] },
      { outputTokens: 30, units: [1] },
    ]);
  });
});
