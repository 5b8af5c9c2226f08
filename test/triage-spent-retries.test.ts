// Triage's units and plans run on the engine, retried by failure kind; a failure whose retries were
// spent inside it (a task unit's trial, which the session's trial engine already retried) is not
// retried again by the unit's or the plan's engine (issue 41 item 4: before, a plan whose live trial
// failed twice was asked again, and its trial run twice more).
import { mkdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { trialError } from "../src/record/index.ts";
import { type TriageSettings, triageRunFiles, UnitFailure } from "../src/triage/index.ts";
import { runKeyed } from "../src/triage/keyed.ts";
import { tempDir } from "./support/project.ts";

function input() {
  const files = triageRunFiles(tempDir(), "t1");
  mkdirSync(files.dir, { recursive: true });
  const lines: string[] = [];
  // runKeyed reads the run id only
  const settings = { runId: "t1" } as TriageSettings;
  return { files, settings, log: (l: string) => lines.push(l), concurrency: 1, lines };
}

/** Runs one plan whose work throws `failure` every time; how many times the work ran, and the run's failures. */
async function attemptsOf(failure: UnitFailure) {
  const run = input();
  let attempts = 0;
  const result = await runKeyed(
    run,
    "plan",
    [{ key: "r=0 alpha=1 framing=neutral" }],
    1,
    async () => {
      attempts += 1;
      throw failure;
    },
    () => "pass",
  );
  return { attempts, result, lines: run.lines };
}

describe("triage's retries", () => {
  it("retries a plan once whose failure kind is retried", async () => {
    const { attempts, result } = await attemptsOf(
      new UnitFailure(trialError("sandbox", "container vanished")),
    );
    // the first attempt and one retry (retries = 1)
    expect(attempts).toBe(2);
    expect(result.failures.map((f) => [f.error?.kind, f.attempt])).toEqual([["sandbox", 2]]);
  });

  it("does not retry a failure whose retries were spent inside it", async () => {
    const spent = new UnitFailure(trialError("sandbox", "trial x.retry1: container vanished"), true);
    const { attempts, result, lines } = await attemptsOf(spent);
    expect(attempts).toBe(1);
    expect(result.failures.map((f) => [f.error?.kind, f.attempt])).toEqual([["sandbox", 1]]);
    expect(lines.join("\n")).toContain("(left out; --resume retries it)");
  });
});
