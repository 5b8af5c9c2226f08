// The canary probe's questions are bounded by the task's wall clock (limits.timeoutSec) when it is
// tighter than the configuration's timeoutSec, as every other form of a trial is (trialLimits): a
// model that never answers ends the canary trial at the task's limit. Before the fix the canary asked
// under the configuration's 1,800 s alone and this test ran into its own timeout.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { probeProject } from "./support/probe-project.ts";
import { kgateAsync } from "./support/scripted-model.ts";

let server: ModelServer;
let release: () => void = () => {};
beforeAll(async () => {
  // Every reply is held until the test ends: the model never answers within any limit.
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  server = await startModelServer([{ text: "never sent", hold: held }]);
});
afterAll(async () => {
  release();
  await server?.close();
});

it("ends a canary question at the task's timeoutSec, not the configuration's", async () => {
  const { paths } = probeProject(server, { silent: "anthropic" });
  const taskFile = path.join(paths.tasks, "demo", "task.json");
  const spec = JSON.parse(readFileSync(taskFile, "utf8"));
  // The task allows 1 s; the configuration keeps its default timeoutSec (1800 s).
  spec.limits = { ...spec.limits, timeoutSec: 1 };
  writeFileSync(taskFile, JSON.stringify(spec, null, 2));

  const result = await kgateAsync(
    [
      "--root",
      paths.root,
      "probe",
      "canary",
      "demo",
      "-n",
      "1",
      "--run-id",
      "c1",
      "--json",
      "--agent",
      "silent",
    ],
    { KGATE_PROBE_KEY: "sk-loopback" },
  );
  const { reports } = JSON.parse(result.stdout) as {
    reports: Array<{ trials: Array<{ error: { kind: string; message: string } | null }> }>;
  };
  // The trial's error is the task's bound: no reply within 1 s (not 1800 s).
  expect(reports[0]!.trials[0]!.error).toEqual({
    kind: "timeout",
    owner: "agent",
    message: "no reply within 1 s",
  });
});
