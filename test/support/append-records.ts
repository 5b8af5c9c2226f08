// Test support: a separate process that appends many large records to one run directory
// (argv: runDir writerId count), to show that concurrent writers never interleave. It says "ready"
// once loaded and writes when told to go (a line on stdin), so that the writers truly write at once.

import { UNVERIFIED } from "../../src/record/index.ts";
import { appendTrialRecord } from "../../src/trial/records.ts";
import { makeRecord } from "./records.ts";

const [runDir, writer, count] = process.argv.slice(2);
process.stdout.write("ready\n");
await new Promise((go) => process.stdin.once("data", go));
for (let i = 0; i < Number(count); i++) {
  appendTrialRecord(
    runDir!,
    makeRecord({
      trialId: `writer-${writer}.${i}`,
      index: i,
      // ~24 KB per line: far beyond a pipe buffer or a page, so a torn write would show.
      verdict: { ...UNVERIFIED, diff: `${writer}`.repeat(24_000) },
    }),
  );
}
