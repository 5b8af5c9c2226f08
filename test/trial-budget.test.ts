// One trial budget, computed once at the trial's start: the tighter of the task's and the agent
// configuration's limits, the sandbox's own deadline past every phase that needs the sandbox, the
// phase bounds; the record keeps it, and records written before it existed still read (budget null).
import { writeFileSync } from "node:fs";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../src/agents/load-config.ts";
import { formatBudget } from "../src/commands/show-format.ts";
import { TrialRecord } from "../src/record/index.ts";
import { configuredPhaseBounds, DEFAULT_PHASE_BOUNDS, trialBudget } from "../src/trial/index.ts";
import { tempProject } from "./support/project.ts";
import { makeRecord } from "./support/records.ts";

const TASK = { timeoutSec: 900, maxTokens: 500_000, maxTurns: 50 };

describe("trialBudget", () => {
  it("takes the tighter of the task's and the configuration's limits, each on its own", () => {
    const agent = { timeoutSec: 1800, tokenBudget: 2_000_000, maxTurns: 10, outputTokenBudget: 300 };
    expect(trialBudget({ limits: TASK, agent, sandbox: true })).toEqual({
      wallClockSec: 900, // the task's 900 < the configuration's 1800
      tokens: 500_000, // the task's 500,000 < 2,000,000
      turns: 10, // the configuration's 10 < 50
      outputTokens: 300,
      // 900 s of agent, then 600 s for the phases around it (the default phases need 60 + 60 + 15 +
      // 30 + 120 = 285 s, less than the 600 s floor)
      sandboxDeadlineSec: 1500,
      phases: DEFAULT_PHASE_BOUNDS,
    });
  });

  it("a configuration's tighter wall clock is the trial's (and the sandbox's deadline follows it)", () => {
    const agent = { timeoutSec: 120, tokenBudget: 1000, maxTurns: 80 };
    const budget = trialBudget({ limits: TASK, agent, sandbox: true });
    expect(budget).toMatchObject({ wallClockSec: 120, tokens: 1000, turns: 50, outputTokens: null });
    expect(budget.sandboxDeadlineSec).toBe(120 + 600);
  });

  it("without a configuration (oracle, noop) the task's limits are the budget", () => {
    expect(trialBudget({ limits: TASK, sandbox: true })).toMatchObject({
      wallClockSec: 900,
      tokens: 500_000,
      turns: 50,
      outputTokens: null,
    });
  });

  it("longer phases push the sandbox's deadline past them; an inline trial has no sandbox deadline", () => {
    // copy-out raised to 20 min: 60 + 60 + 15 + 30 + 1200 = 1365 s around the agent, over the 600 s floor
    const phases = { copyOut: 1_200_000 };
    const budget = trialBudget({ limits: TASK, phases, sandbox: true });
    expect(budget.sandboxDeadlineSec).toBe(900 + 1365);
    expect(budget.phases).toEqual({ ...DEFAULT_PHASE_BOUNDS, copyOut: 1_200_000 });
    expect(trialBudget({ limits: TASK, phases, sandbox: false }).sandboxDeadlineSec).toBeNull();
  });
});

describe("the record's budget", () => {
  it("is kept as written, and a record older than the field reads with budget null", () => {
    const budget = trialBudget({ limits: TASK, sandbox: true });
    const record = makeRecord({ budget });
    expect(TrialRecord.parse(JSON.parse(JSON.stringify(record))).budget).toEqual(budget);
    const { budget: _, ...old } = JSON.parse(JSON.stringify(makeRecord()));
    expect("budget" in old).toBe(false);
    expect(TrialRecord.parse({ ...old, recordVersion: 3 }).budget).toBeNull();
  });

  it("kgate show prints it in one line, and says when a record has none", () => {
    const agent = { timeoutSec: 120, tokenBudget: 1000, maxTurns: 80, outputTokenBudget: 300 };
    // 120 s (the configuration's), 1,000 tokens, 300 output, 50 turns (the task's); 120 + 600 = 720 s
    const line = stripVTControlCharacters(formatBudget(trialBudget({ limits: TASK, agent, sandbox: true })));
    expect(line).toBe("120 s · 1,000 tokens · 300 output tokens · 50 turns  sandbox ends by 720 s");
    expect(formatBudget(null)).toMatch(/not recorded/);
  });

  it("refuses a budget that is not one (a record is the on-disk contract)", () => {
    const record = JSON.parse(JSON.stringify(makeRecord()));
    const bad = { ...trialBudget({ limits: TASK, sandbox: true }), wallClockSec: -1 };
    expect(TrialRecord.safeParse({ ...record, budget: bad }).success).toBe(false);
  });
});

describe("phase bounds from kgate.config.json (trial.phaseBoundsSec)", () => {
  const withConfig = (config: unknown) => {
    const paths = tempProject();
    writeFileSync(paths.config, JSON.stringify(config));
    return paths;
  };

  it("are read in seconds and given in ms; phases not named keep their defaults", () => {
    const paths = withConfig({ trial: { phaseBoundsSec: { create: 300, copyOut: 900 } } });
    expect(configuredPhaseBounds(paths)).toEqual({ create: 300_000, copyOut: 900_000 });
    expect(configuredPhaseBounds(withConfig({ agents: {} }))).toEqual({});
    // the agents' loader accepts the section (the file's schema is strict)
    const text = JSON.stringify({ trial: { phaseBoundsSec: { verify: 120 } } });
    expect(parseConfigText("kgate.config.json", text).errors).toEqual([]);
  });

  it("a bad value or an unknown phase names the file, the field and the fix", () => {
    expect(() => configuredPhaseBounds(withConfig({ trial: { phaseBoundsSec: { copyOut: 0 } } }))).toThrow(
      /^kgate\.config\.json: trial\.phaseBoundsSec\.copyOut: .*whole number of seconds, 1 to 86400/,
    );
    expect(() => configuredPhaseBounds(withConfig({ trial: { phaseBoundsSec: { copyout: 5 } } }))).toThrow(
      /^kgate\.config\.json: trial\.phaseBoundsSec: unknown field\(s\): copyout/,
    );
    expect(() => configuredPhaseBounds(withConfig({ trial: 3 }))).toThrow(/^kgate\.config\.json: trial: /);
  });
});
