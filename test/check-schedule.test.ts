// kgate check's tasks through the engine (src/check/schedule.ts): handed back in the order given
// whatever order they finish in, `concurrency` at once, a task whose check throws kept as a failed
// task with kgate's error and its stack (issue 41 item 4), the others checked all the same.
import { describe, expect, it } from "vitest";
import { type CheckStep, checkTasks, type TaskCheck } from "../src/check/index.ts";
import { tempProject } from "./support/project.ts";

/** A promise and its resolve. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const pass = (id: string, run: CheckStep["run"]): CheckStep => ({ id, needs: [], run });

describe("kgate check's schedule", () => {
  it("hands tasks back in the order given though the last finishes first", async () => {
    const lastDone = deferred();
    const finished: string[] = [];
    const step = pass("wait", async (context) => {
      // a waits for c: a cannot finish before c has (three at once, so all three run)
      if (context.id === "a") await lastDone.promise;
      finished.push(context.id);
      if (context.id === "c") lastDone.resolve();
      return [{ status: "pass", detail: "ok" }];
    });
    const handed: string[] = [];
    const { results } = await checkTasks(tempProject(), ["a", "b", "c"], {
      concurrency: 3,
      steps: [step],
      checked: (r: TaskCheck) => handed.push(r.id),
    });
    expect(finished).toEqual(["b", "c", "a"]);
    expect(handed).toEqual(["a", "b", "c"]);
    expect(results.map((r) => r.id)).toEqual(["a", "b", "c"]);
  });

  it("checks at most `concurrency` tasks at once", async () => {
    let running = 0;
    let peak = 0;
    const step = pass("count", async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      running -= 1;
      return [{ status: "pass", detail: "ok" }];
    });
    const { results } = await checkTasks(tempProject(), ["a", "b", "c", "d", "e"], {
      concurrency: 2,
      steps: [step],
    });
    expect(results).toHaveLength(5);
    // two start in the same turn of the event loop; the other three each wait for a free slot
    expect(peak).toBe(2);
  });

  it("a step's TypeError fails its task with the stack kept, and the other tasks are checked", async () => {
    const buggy = pass("buggy", async (context) => {
      if (context.id === "b") (undefined as unknown as { x: () => void }).x();
      return [{ status: "pass", detail: "ok" }];
    });
    const after = pass("after", async () => [{ status: "pass", detail: "still run" }]);
    const { results, bugs } = await checkTasks(tempProject(), ["a", "b", "c"], {
      concurrency: 2,
      steps: [buggy, after],
    });
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ["a", true],
      ["b", false],
      ["c", true],
    ]);
    const b = results[1]!.checks;
    expect(b.map((c) => `${c.id} ${c.status}`)).toEqual(["buggy fail", "after pass"]);
    expect(b[0]!.detail).toContain("a bug in kgate");
    expect(bugs).toHaveLength(1);
    expect(bugs[0]!.trialId).toBe("check of b");
    expect(bugs[0]!.error.kind).toBe("internal");
    // the stack names this test file, where the TypeError was thrown
    expect(bugs[0]!.error.stack).toMatch(/TypeError[\s\S]*check-schedule\.test\.ts/);
  });

  it("a user's mistake in a step is a failed check, not kgate's bug", async () => {
    const step = pass("bad-input", async () => {
      throw new Error("tasks/b/task.json: outputs.0.path: required");
    });
    const { results, bugs } = await checkTasks(tempProject(), ["b"], { concurrency: 1, steps: [step] });
    expect(results[0]!.checks[0]!.detail).toBe(
      "the check itself failed: tasks/b/task.json: outputs.0.path: required",
    );
    expect(bugs).toEqual([]);
  });

  it("a task whose check crashes outside a step is a failed task with its stack; the batch goes on", async () => {
    const step = pass("ok", async () => [{ status: "pass", detail: "ok" }]);
    const { results, bugs } = await checkTasks(tempProject(), ["a", "b", "c"], {
      concurrency: 1,
      steps: [step],
      // the first progress line of b's check throws, before any step runs
      progress: (line) => {
        if (line === "checking b") throw new RangeError("progress broke");
      },
    });
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ["a", true],
      ["b", false],
      ["c", true],
    ]);
    expect(results[1]!.checks[0]!.detail).toBe("the check itself failed: progress broke");
    expect(bugs.map((b) => b.error.stack?.split("\n")[0])).toEqual(["RangeError: progress broke"]);
  });

  it("leaves out the tasks an interrupt kept from starting", async () => {
    const controller = new AbortController();
    const step = pass("stop", async (context) => {
      if (context.id === "a") controller.abort();
      return [{ status: "pass", detail: "ok" }];
    });
    const { results } = await checkTasks(tempProject(), ["a", "b", "c"], {
      concurrency: 1,
      signal: controller.signal,
      steps: [step],
    });
    // a was running when the interrupt came and finishes; b and c never start
    expect(results.map((r) => r.id)).toEqual(["a"]);
  });
});
