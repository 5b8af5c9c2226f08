// Test support: a separate process that appends many large records to one run directory
// (argv: runDir writerId count), to show that concurrent writers never interleave.

import { UNVERIFIED } from "../../src/record/index.ts";
import { appendTrialRecord } from "../../src/trial/index.ts";
import { makeRecord } from "./records.ts";

const [runDir, writer, count] = process.argv.slice(2);
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
