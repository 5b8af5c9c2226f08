// Test support: valid TrialRecords for record-file tests, without running a trial.
import { type TrialRecord, TrialRecord as TrialRecordSchema, UNVERIFIED } from "../../src/record/index.ts";

export function makeRecord(overrides: Partial<TrialRecord> = {}): TrialRecord {
  const now = new Date().toISOString();
  return TrialRecordSchema.parse({
    recordVersion: 1,
    runId: "run-1",
    trialId: "demo.with-A.oracle.0",
    index: 0,
    attempt: 1,
    task: {
      id: "demo",
      digests: { task: "t".repeat(64), instruction: "i".repeat(64), environment: "e".repeat(64) },
    },
    condition: "+A",
    artefactDigest: "a".repeat(64),
    fileSetDigest: "f".repeat(64),
    agent: { name: "oracle", digest: "d".repeat(64), harness: "oracle", model: null },
    startedAt: now,
    finishedAt: now,
    phases: {},
    usage: {},
    stopReason: "finish",
    outputs: [],
    verdict: UNVERIFIED,
    error: null,
    trajectory: null,
    ...overrides,
  });
}
