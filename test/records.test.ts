// runs/<run>/trials.jsonl: one line per record, appended atomically by concurrent writers, and read
// back with every bad line reported by its number while the good lines are kept.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appendTrialRecord, readTrialRecords, trialsFileOf } from "../src/trial/index.ts";
import { tempDir } from "./support/project.ts";
import { makeRecord } from "./support/records.ts";

const runDir = () => tempDir("kgate-records-");

/** A writer process of `count` records, once it is loaded (its "ready" line); `go` starts it writing. */
function writer(dir: string, id: number, count: number): Promise<{ go: () => void; done: Promise<number> }> {
  const script = path.resolve(import.meta.dirname, "support/append-records.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script, dir, String(id), String(count)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const done = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? -1));
  });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", () => resolve({ go: () => child.stdin.end("go\n"), done }));
    void done.then((code) => reject(new Error(`writer ${id} exited ${code} before it was ready`)));
  });
}

describe("trials.jsonl", () => {
  it("round-trips records, one line each", () => {
    const dir = runDir();
    const a = makeRecord({ trialId: "a" });
    const b = makeRecord({
      trialId: "b",
      error: { kind: "sandbox", owner: "sandbox", message: "daemon gone" },
    });
    appendTrialRecord(dir, a);
    appendTrialRecord(dir, b);
    expect(readFileSync(trialsFileOf(dir), "utf8").split("\n")).toHaveLength(3);
    expect(readTrialRecords(dir)).toEqual({ records: [a, b], problems: [] });
  });

  it("four processes appending 24 KB records at once never interleave a line", async () => {
    const dir = runDir();
    // all four loaded before any writes: their 50 appends each overlap
    const writers = await Promise.all([1, 2, 3, 4].map((id) => writer(dir, id, 50)));
    for (const w of writers) w.go();
    const codes = await Promise.all(writers.map((w) => w.done));
    expect(codes).toEqual([0, 0, 0, 0]);
    const { records, problems } = readTrialRecords(dir);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(200);
    for (const r of records) {
      const id = r.trialId.split(".")[0]!.slice("writer-".length);
      expect(r.verdict.diff).toBe(id.repeat(24_000));
    }
  }, 60_000);

  it("reports a bad line by number and keeps every other record", () => {
    const dir = runDir();
    appendTrialRecord(dir, makeRecord({ trialId: "first" }));
    appendFileSync(trialsFileOf(dir), "{ not json\n");
    appendFileSync(trialsFileOf(dir), `${JSON.stringify({ ...makeRecord(), stopReason: "bored" })}\n`);
    appendTrialRecord(dir, makeRecord({ trialId: "last" }));
    const { records, problems } = readTrialRecords(dir);
    expect(records.map((r) => r.trialId)).toEqual(["first", "last"]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatchObject({ line: 2, message: expect.stringMatching(/^invalid JSON/) });
    expect(problems[1]).toMatchObject({
      line: 3,
      message: expect.stringMatching(/^not a valid trial record: stopReason/),
    });
  });

  it("a line torn by a crash stays alone: the next record starts on its own line", () => {
    const dir = runDir();
    appendTrialRecord(dir, makeRecord({ trialId: "before" }));
    const whole = JSON.stringify(makeRecord({ trialId: "torn" }));
    appendFileSync(trialsFileOf(dir), whole.slice(0, 100));
    expect(readTrialRecords(dir).problems[0]?.message).toMatch(/incomplete last line/);
    appendTrialRecord(dir, makeRecord({ trialId: "after" }));
    const { records, problems } = readTrialRecords(dir);
    expect(records.map((r) => r.trialId)).toEqual(["before", "after"]);
    expect(problems.map((p) => p.line)).toEqual([2]);
  });

  it("refuses to write a record that does not match the schema", () => {
    const dir = runDir();
    expect(() => appendTrialRecord(dir, { ...makeRecord(), index: -1 })).toThrow();
    writeFileSync(path.join(dir, "x"), "");
    expect(readTrialRecords(dir).records).toEqual([]);
  });
});
