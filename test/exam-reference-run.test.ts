// The reference run's bookkeeping with trials given by the test (no model, no sandbox): one line per
// unit as its trials end, a failing unit left out without stopping the others and measured on the
// rerun, reported token counts bounded, lines without provenance refused.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseReferenceLines, type ReferenceRunOptions, runReference } from "../src/exam/index.ts";
import { trialError } from "../src/record/index.ts";
import { tempProject } from "./support/project.ts";

const PROVENANCE = {
  kind: "items" as const,
  agent: { name: "a", digest: "d" },
  kgateVersion: "0.0.0",
  condition: null,
  budget: 100,
  trials: 2,
  runId: null,
};

function options(file: string, runTrial: ReferenceRunOptions["runTrial"]): ReferenceRunOptions {
  return {
    units: ["u1", "u2", "u3"].map((id) => ({ id, digest: `sha-${id}` })),
    trials: 2,
    file,
    provenance: PROVENANCE,
    runTrial,
  };
}

describe("runReference", () => {
  it("writes the units whose trials end, leaves out a failing one, and measures only it on the rerun", async () => {
    const file = path.join(tempProject().root, "ref.jsonl");
    const calls: string[] = [];
    let u2Broken = true;
    const trial: ReferenceRunOptions["runTrial"] = async (id, k) => {
      calls.push(`${id}#${k}`);
      // an infrastructure error of the taxonomy (not counted): the unit is left out, rerun later
      if (id === "u2" && u2Broken)
        return { correct: false, tokens: 0, error: trialError("provider-outage", "provider down") };
      // u1: passes trial 0 only, 10 and 30 tokens; u3: NaN and 1e308 reported (bounded: 0 and 2^53 - 1)
      if (id === "u1") return { correct: k === 0, tokens: k === 0 ? 10 : 30, error: null };
      if (id === "u3") return { correct: true, tokens: k === 0 ? Number.NaN : 1e308, error: null };
      return { correct: false, tokens: 7, error: null };
    };
    const first = await runReference(options(file, trial));
    expect(first).toEqual({
      written: 2,
      kept: 0,
      failed: [{ id: "u2", message: "provider-outage: provider down" }],
    });
    const lines = new Map(parseReferenceLines(readFileSync(file, "utf8"), file).map((l) => [l.id, l]));
    expect([...lines.keys()].sort()).toEqual(["u1", "u3"]);
    // u1: 1 pass of 2, (10 + 30) / 2 tokens
    expect(lines.get("u1")).toMatchObject({ accuracy: 0.5, tokens: 20 });
    expect(lines.get("u1")!.provenance).toEqual({ ...PROVENANCE, unitDigest: "sha-u1" });
    // u3: (0 + 9007199254740991) / 2
    expect(lines.get("u3")).toMatchObject({ accuracy: 1, tokens: Number.MAX_SAFE_INTEGER / 2 });

    u2Broken = false;
    calls.length = 0;
    const second = await runReference(options(file, trial));
    expect(second).toEqual({ written: 1, kept: 2, failed: [] });
    expect(calls.sort()).toEqual(["u2#0", "u2#1"]);
    expect(parseReferenceLines(readFileSync(file, "utf8"), file).find((l) => l.id === "u2")).toMatchObject({
      accuracy: 0,
      tokens: 7,
    });
  });

  it("refuses to add to a hand-written file or to a unit whose content changed, naming the line", async () => {
    const file = path.join(tempProject().root, "ref.jsonl");
    const never: ReferenceRunOptions["runTrial"] = async () => {
      throw new Error("no trial should run");
    };
    writeFileSync(file, `${JSON.stringify({ id: "u1", accuracy: 1, tokens: 5 })}\n`);
    await expect(runReference(options(file, never))).rejects.toThrow(
      /ref\.jsonl: line 1 \("u1"\) has no provenance/,
    );
    const line = { id: "u1", accuracy: 1, tokens: 5, provenance: { ...PROVENANCE, unitDigest: "old" } };
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    await expect(runReference(options(file, never))).rejects.toThrow(
      /ref\.jsonl: line 1 \("u1"\) was measured on other content/,
    );
  });
});
