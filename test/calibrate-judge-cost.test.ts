// A trial's judges in its cost: the most the memo task's judge criterion can be asked in one trial
// (its verdict, then the default and perturbed texts on a failure), priced at the judge's prices and
// added to each cell's worst case for --max-cost and --estimate; a judge without prices cannot be
// reserved; a recorded trial's cost is its agent's plus its judges'.
import { describe, expect, it } from "vitest";
import { JUDGE_MAX_OUTPUT_TOKENS, JUDGE_SYSTEM_PROMPT } from "../src/agents/index.ts";
import {
  estimateCalibration,
  judgeBoundsOf,
  judgeWorstCases,
  missingJudges,
  priceCeiling,
  UnpricedCeiling,
} from "../src/calibrate/index.ts";
import { type CostCaps, judgeWorstCase, worstCaseUsd } from "../src/cost/index.ts";
import { trialCostUsd, ZERO_USAGE } from "../src/record/index.ts";
import { criterionFor, memoProject, TOTALS } from "./support/judge-task.ts";
import { makeRecord } from "./support/records.ts";

const MAX_BYTES = 1024 * 1024; // output/memo.md declares no maxBytes: the default cap, 1 MiB

function memoTask() {
  const project = memoProject({ provider: "anthropic", baseUrl: "http://127.0.0.1:9/v1" });
  return { ...project, task: project.load() };
}

describe("the judge calls of a trial, at most", () => {
  it("counts the verdict and one call per candidate whose text differs, each with the memo at its cap", async () => {
    const { task } = memoTask();
    const [bound] = (await judgeBoundsOf([task])).get("markup")!;
    expect(bound!.config).toBe("judge");
    // the artefact's text, then the default's and the perturbed variant's (the compressed one states
    // the artefact's total: no call)
    expect(bound!.inputBytes).toHaveLength(3);
    const [verdict, asDefault, asPerturbed] = bound!.inputBytes;
    // "36.40", "32.50" and "37.38" have as many bytes: the three calls send as much
    expect(criterionFor(TOTALS.artefact).length).toBe(criterionFor(TOTALS.default).length);
    expect(asDefault).toBe(verdict);
    expect(asPerturbed).toBe(verdict);
    // each sends at least the system prompt, the criterion and the memo at its 1 MiB cap
    expect(verdict).toBeGreaterThan(
      MAX_BYTES + JUDGE_SYSTEM_PROMPT.length + criterionFor(TOTALS.artefact).length,
    );
    expect(verdict).toBeLessThan(MAX_BYTES + 4000);
  });

  it("prices them at the judge's dearest input price and its output cap", async () => {
    const { task } = memoTask();
    const bounds = (await judgeBoundsOf([task])).get("markup")!;
    const b = bounds[0]!.inputBytes[0]!;
    const worst = judgeWorstCase(bounds, () => ({
      pricing: { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75 },
      maxOutputTokens: 8192,
    }));
    // per call: (bytes + 3 x 16 framing) tokens at the dearest input price, $3.75/M, and at most 1024
    // output tokens (the judge's cap, below the configuration's 8192) at $15/M; three calls
    const perCall = ((b + 48) * 3.75 + 1024 * 15) / 1e6;
    expect(JUDGE_MAX_OUTPUT_TOKENS).toBe(1024);
    expect(worst.calls).toBe(3);
    expect(worst.usd).toBeCloseTo(3 * perCall, 10);
    expect(worst.tokens).toEqual({ input: 3 * (b + 48), output: 3 * 1024 });
    expect(judgeWorstCase(bounds, () => ({ pricing: null, maxOutputTokens: 1024 })).unpriced).toEqual([
      "judge",
    ]);
  });
});

describe("--max-cost and --estimate", () => {
  const caps: CostCaps = {
    harness: "builtin",
    tokenBudget: 100_000,
    maxTurns: 10,
    maxOutputTokens: 2000,
    pricing: { inputPerMTok: 3, outputPerMTok: 15 },
  };
  const cell = {
    key: "markup/frontier/+A",
    task: "markup",
    agent: "frontier",
    condition: "+A",
    label: "frontier+A",
  };

  it("adds the task's judges to each cell's worst case, and refuses a judge without prices", async () => {
    const { task, paths } = memoTask();
    const judges = judgeWorstCases(paths, await judgeBoundsOf([task]));
    const judge = judges.get("markup")!;
    // the memo project's judge: $3 in / $15 out per million (test/support/judge-model.ts)
    expect(judge.usd).toBeGreaterThan(3 * 1024 * 15e-6);
    const tasks = new Map([["markup", task]]);
    const ceiling = priceCeiling(10, [cell as never], tasks, () => caps, judges);
    expect(ceiling.worstCaseUsd[cell.key]).toBeCloseTo(
      worstCaseUsd(caps, task.spec.limits.maxTokens)! + judge.usd!,
      12,
    );
    const unpriced = new Map([["markup", { ...judge, usd: null, unpriced: ["judge"] }]]);
    expect(() => priceCeiling(10, [cell as never], tasks, () => caps, unpriced)).toThrow(UnpricedCeiling);
    expect(() => priceCeiling(10, [cell as never], tasks, () => caps, unpriced)).toThrow(/judge/);
  });

  it("estimates a cell without records from the caps plus its judges, and from records at agent + judges", async () => {
    const { task, paths } = memoTask();
    const judges = judgeWorstCases(paths, await judgeBoundsOf([task]));
    const agent = { digest: "d1", caps };
    const base = {
      cells: [cell as never],
      tasks: new Map([["markup", task]]),
      agents: new Map([["frontier", agent]]),
      trialsPerCell: 2,
      judges,
    };
    const fromCaps = estimateCalibration({ ...base, records: [] });
    const each = worstCaseUsd(caps, task.spec.limits.maxTokens)! + judges.get("markup")!.usd!;
    expect(fromCaps.cells[0]).toMatchObject({ source: "caps" });
    expect(fromCaps.cells[0]!.costUsd!.high).toBeCloseTo(2 * each, 12);
    // one earlier trial: $0.002 for the agent and $0.0099 for its judges
    const record = makeRecord({
      task: { id: "markup", digests: { ...task.digests } },
      agent: { name: "frontier", digest: "d1", harness: "builtin", model: null },
      condition: "+A",
      usage: { ...ZERO_USAGE, inputTokens: 1000, outputTokens: 200, modelCalls: 1, costUsd: 0.002 },
      judgeUsage: { ...ZERO_USAGE, inputTokens: 2700, outputTokens: 120, modelCalls: 3, costUsd: 0.0099 },
    });
    expect(trialCostUsd(record)).toBeCloseTo(0.0119, 12);
    const fromRecords = estimateCalibration({ ...base, records: [record] });
    // 2 trials x $0.0119
    expect(fromRecords.cells[0]!.costUsd!.expected).toBeCloseTo(0.0238, 12);
    expect(fromRecords.cells[0]!.tokens).toMatchObject({ input: 3700, output: 320 });
  });

  it("names a judge whose key is not set before a calibration starts", async () => {
    const { task, paths } = memoTask();
    const bounds = await judgeBoundsOf([task]);
    expect(missingJudges(paths, bounds, {})).toEqual([
      'markup: the judge "judge" needs the environment variable KGATE_TEST_JUDGE_KEY (its API key)',
    ]);
    expect(missingJudges(paths, bounds, { KGATE_TEST_JUDGE_KEY: "k" })).toEqual([]);
  });
});
