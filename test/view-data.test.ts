// The viewer's data from files an agent could have written: a trajectory over the byte cap, lines
// that are not JSON or not events, a trajectory path pointing out of the run; the local server
// answers fixed routes for its own host name only; the committed browser bundle is what its
// sources build to; `kgate view` errors exit 2 naming what is wrong.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildViewBundle } from "../scripts/build-view.mjs";
import { readRecords, runDir, summariseRun } from "../src/calibrate/index.ts";
import type { Verdict } from "../src/verify/index.ts";
import { diffRows } from "../src/view/diff-rows.ts";
import {
  buildViewData,
  EVENT_TEXT_CAP,
  readTrajectoryForView,
  serveSite,
  sourceOfSummary,
  TRAJECTORY_BYTE_CAP,
  ViewIndex,
} from "../src/view/index.ts";
import { OUTPUT_TEXT_CAP, shownOutput } from "../src/view/outputs.ts";
import { kgate } from "./support/cli.ts";
import { tempProject } from "./support/project.ts";
import { makeRecord } from "./support/records.ts";
import { SHOWN_DIFF, SHOWN_TRIAL, viewRun } from "./support/view-run.ts";

describe("trajectory for the viewer", () => {
  it("keeps the good events of a hostile file and says what it left out", () => {
    const paths = tempProject();
    const file = path.join(paths.root, "t.jsonl");
    const long = "x".repeat(EVENT_TEXT_CAP + 10);
    writeFileSync(
      file,
      [
        JSON.stringify({ at: "a", type: "model", turn: 1, text: long }),
        "not json",
        "[1,2]",
        JSON.stringify({ type: 7, turn: "x", name: { no: 1 } }),
        "",
      ].join("\n"),
    );
    const read = readTrajectoryForView(file, "t.jsonl");
    expect(read.problems).toEqual([
      "t.jsonl: line 2: not JSON, left out",
      "t.jsonl: line 3: not a trajectory event, left out",
    ]);
    expect(read.events).toHaveLength(2);
    // The text is cut at the cap, with the 10 characters beyond it counted.
    expect(read.events[0]!.text).toBe(`${"x".repeat(EVENT_TEXT_CAP)}\n… (10 more characters not shown)`);
    expect(read.events[1]).toMatchObject({ type: "unknown", turn: null, name: null });
  });

  it("reads no more than the byte cap of a huge file", () => {
    const paths = tempProject();
    const file = path.join(paths.root, "huge.jsonl");
    const line = `${JSON.stringify({ at: "a", type: "note", text: "y".repeat(1000) })}\n`;
    // Enough lines for 1.5 x the cap.
    writeFileSync(file, line.repeat(Math.ceil((1.5 * TRAJECTORY_BYTE_CAP) / line.length)));
    const read = readTrajectoryForView(file, "huge.jsonl");
    expect(read.events.length).toBe(Math.floor(TRAJECTORY_BYTE_CAP / line.length));
    expect(read.problems).toEqual([`huge.jsonl: only the first ${TRAJECTORY_BYTE_CAP} bytes are shown`]);
  });

  it("does not follow a record's trajectory path out of the run directory", () => {
    const paths = tempProject();
    const made = viewRun(paths);
    const run = runDir(paths, "paper");
    const records = readRecords(run).records.map((r) =>
      r.trialId === SHOWN_TRIAL ? { ...r, trajectory: "../../outside.jsonl" } : r,
    );
    mkdirSync(paths.root, { recursive: true });
    writeFileSync(path.join(paths.root, "outside.jsonl"), '{"type":"model","text":"secret"}\n');
    const data = buildViewData(
      [{ source: sourceOfSummary(summariseRun(run)), records, dir: made.runDir, shown: run.shown }],
      false,
    );
    const key = data.index.trials.find((t) => t.trialId === SHOWN_TRIAL)!.key;
    const detail = data.detail(key)!;
    expect(detail.events).toEqual([]);
    expect(detail.problems).toEqual([
      'trajectory path "../../outside.jsonl" points outside the run directory: not read',
    ]);
  });
});

describe("the diff and the outputs for the viewer", () => {
  it("pairs each expected line of the verifier's diff with its actual line; other text stays text", () => {
    expect(diffRows(SHOWN_DIFF)).toEqual([
      { kind: "file", text: "output/assembly_costs.csv" },
      { kind: "hunk", text: "@@ -1,3 +1,3 @@" },
      { kind: "pair", expected: "A-100,38.5000", actual: "A-100,12.4000" },
      { kind: "pair", expected: "A-200,12.0000", actual: "A-200,11.0000" },
      { kind: "pair", expected: "A-300,7.2500", actual: "A-300,7.0000" },
    ]);
    // Two expected lines, one actual: the second pair has no actual side.
    expect(
      diffRows(
        "--- expected/x\n+++ actual/x\n@@ -1,2 +1 @@\n-a\n-b\n+c\n... 3 more differing row(s) not shown\n",
      ),
    ).toEqual([
      { kind: "file", text: "x" },
      { kind: "hunk", text: "@@ -1,2 +1 @@" },
      { kind: "pair", expected: "a", actual: "c" },
      { kind: "pair", expected: "b", actual: null },
      { kind: "note", text: "... 3 more differing row(s) not shown" },
    ]);
    expect(diffRows("total_cost: expected 1234.56, got 1000")).toBeNull();
  });

  it("reads a kept output capped, names a binary one, and follows no link", () => {
    const run = tempProject().root;
    const kept = path.join(run, "trials", "t.0", "outputs");
    mkdirSync(kept, { recursive: true });
    writeFileSync(path.join(kept, "big.txt"), "x".repeat(OUTPUT_TEXT_CAP + 10));
    writeFileSync(path.join(kept, "blob.bin"), Buffer.from([1, 0, 2]));
    writeFileSync(path.join(run, "secret.txt"), "secret\n");
    symlinkSync(path.join(run, "secret.txt"), path.join(kept, "link.txt"));
    const shown = (p: string) => shownOutput(run, "t.0", { path: p, status: "collected" });
    const big = shown("big.txt");
    expect(big.text).toHaveLength(OUTPUT_TEXT_CAP);
    expect(big.note).toBe(`only the first ${OUTPUT_TEXT_CAP} of ${OUTPUT_TEXT_CAP + 10} bytes are shown`);
    expect(shown("blob.bin")).toMatchObject({ text: null, note: "binary, 3 bytes: not shown" });
    expect(shown("link.txt")).toMatchObject({
      text: null,
      note: "not a regular file in the run directory: not read",
    });
    // A folder on the way that is a link out of the run directory is not followed either.
    const outside = tempProject().root;
    writeFileSync(path.join(outside, "elsewhere.txt"), "elsewhere\n");
    symlinkSync(outside, path.join(kept, "dir"));
    expect(shown("dir/elsewhere.txt")).toMatchObject({
      text: null,
      note: "its path passes through a link: not read",
    });
    expect(shown("../../../../secret.txt")).toMatchObject({
      text: null,
      note: "its path leaves the run directory: not read",
    });
  });
});

/** One raw request: the status and body, with the Host header as given. */
function get(
  url: string,
  pathName: string,
  host: string,
  method = "GET",
): Promise<{ status: number; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: pathName, method, headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the local server", () => {
  it("answers fixed routes on 127.0.0.1 only, for its own host name", async () => {
    const paths = tempProject();
    const made = viewRun(paths);
    const run = runDir(paths, "paper");
    const site = await serveSite(
      () =>
        buildViewData(
          [
            {
              source: sourceOfSummary(summariseRun(run)),
              records: readRecords(run).records,
              dir: made.runDir,
              shown: run.shown,
            },
          ],
          true,
        ),
      0,
    );
    try {
      const host = new URL(site.url).host;
      expect((await get(site.url, "/", host)).status).toBe(200);
      const index = await get(site.url, "/data/runs.js", host);
      expect(index.body.startsWith("kgateView.index(")).toBe(true);
      expect((await get(site.url, "/data/trial/0-0.js", host)).body.startsWith("kgateView.trial(")).toBe(
        true,
      );
      // DNS rebinding: a page on another name that resolves to 127.0.0.1 gets nothing.
      expect((await get(site.url, "/data/runs.js", `evil.example:${new URL(site.url).port}`)).status).toBe(
        421,
      );
      expect((await get(site.url, "/data/runs.js", host, "POST")).status).toBe(405);
      for (const probe of [
        "/../plan.json",
        "/data/trial/..%2Fplan.js",
        "/data/trial/9-9999.js",
        "/plan.json",
      ]) {
        expect((await get(site.url, probe, host)).status).toBe(404);
      }
    } finally {
      await site.close();
    }
  });
});

describe("browser bundle", () => {
  it("is what src/view/app builds to (run `node scripts/build-view.mjs` after changing it)", async () => {
    const committed = readFileSync(path.resolve(import.meta.dirname, "../src/view/assets/app.js"), "utf8");
    expect(committed === (await buildViewBundle())).toBe(true);
  });
});

describe("kgate view of a run without a plan", () => {
  it("shows a `kgate run` directory from its records: cells per agent and condition, retries superseded", () => {
    const paths = tempProject();
    const dir = path.join(paths.runs, "adhoc");
    mkdirSync(dir, { recursive: true });
    const pass: Verdict = { status: "pass", reward: 1, score: 1, criteria: [], attribution: null };
    const fail: Verdict = {
      status: "fail",
      reward: 0,
      score: 0,
      criteria: [],
      attribution: "default-convention",
    };
    const records = [
      makeRecord({ runId: "adhoc", trialId: "demo.with-A.oracle.0", verdict: pass }),
      makeRecord({
        runId: "adhoc",
        trialId: "demo.with-A.oracle.1",
        index: 1,
        error: { owner: "sandbox", kind: "sandbox-unavailable", message: "daemon gone" },
      }),
      makeRecord({
        runId: "adhoc",
        trialId: "demo.with-A.oracle.1.retry1",
        index: 1,
        attempt: 2,
        verdict: pass,
      }),
      makeRecord({
        runId: "adhoc",
        trialId: "demo.without-A.oracle.0",
        condition: "-A",
        artefactDigest: null,
        verdict: fail,
      }),
    ];
    writeFileSync(path.join(dir, "trials.jsonl"), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const out = path.join(paths.root, "site");
    const result = kgate(["--root", paths.root, "view", "adhoc", "--out", out]);
    expect(result.code).toBe(0);
    const script = readFileSync(path.join(out, "data", "runs.js"), "utf8");
    const index = ViewIndex.parse(JSON.parse(script.slice("kgateView.index(".length, -");\n".length)));
    expect(index.runs[0]!.mode).toBe("records only (no plan.json)");
    // +A: index 0 passed, index 1 passed on its second attempt (the infra attempt is superseded): 2/2.
    // -A: one failure: 0/1.
    expect(index.runs[0]!.cells.map((c) => [c.label, c.passes, c.runs])).toEqual([
      ["oracle +A", 2, 2],
      ["oracle -A", 0, 1],
    ]);
    expect(index.trials.map((t) => [t.trialId, t.superseded, t.outcome, t.mustFail])).toEqual([
      ["demo.with-A.oracle.0", false, "pass", false],
      ["demo.with-A.oracle.1", true, "infra", false],
      ["demo.with-A.oracle.1.retry1", false, "pass", false],
      ["demo.without-A.oracle.0", false, "fail", true],
    ]);
  });
});

describe("kgate view errors", () => {
  it("exits 2 on a missing run, naming it, and on a bad port", () => {
    const paths = tempProject();
    const missing = kgate(["--root", paths.root, "view", "nope", "--out", path.join(paths.root, "x")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("kgate: no run directory runs/nope\n");
    const port = kgate(["--root", paths.root, "view", "nope", "--port", "http"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toBe('kgate: --port must be an integer from 0 to 65535, got "http"\n');
    const help = kgate(["view", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--out <dir>");
  });
});

describe("a judged criterion for the viewer", () => {
  it("carries the criterion as the judge was given it, the outputs it read, the verdict, reason and cost", () => {
    const paths = tempProject();
    const made = viewRun(paths);
    const run = runDir(paths, "paper");
    const judge = {
      config: "judge",
      criterion: "The memo states that the marked-up total of the order is 36.40.",
      reads: ["output/memo.md"],
      verdict: "fail" as const,
      reason: "does not state 36.40",
      model: "claude-judge",
      temperature: 0,
      usage: {
        inputTokens: 900,
        outputTokens: 40,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        modelCalls: 1,
        callsChargedAtReservation: 0,
        costUsd: 0.0033,
      },
    };
    const records = readRecords(run).records.map((r) =>
      r.trialId === SHOWN_TRIAL
        ? {
            ...r,
            verdict: {
              ...r.verdict,
              criteria: [{ name: "output/memo.md: states the total", passed: false, weight: 2, judge }],
            },
          }
        : r,
    );
    const data = buildViewData(
      [{ source: sourceOfSummary(summariseRun(run)), records, dir: made.runDir, shown: run.shown }],
      false,
    );
    const key = data.index.trials.find((t) => t.trialId === SHOWN_TRIAL)!.key;
    expect(data.detail(key)!.verdict.criteria).toEqual([
      {
        name: "output/memo.md: states the total",
        passed: false,
        detail: null,
        weight: 2,
        judge: {
          config: "judge",
          model: "claude-judge",
          criterion: judge.criterion,
          reads: ["output/memo.md"],
          verdict: "fail",
          reason: "does not state 36.40",
          costUsd: 0.0033,
        },
      },
    ]);
  });
});
