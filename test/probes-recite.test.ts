// `kgate probe recite` end to end: the real CLI, scripted personas behind the real Anthropic and
// OpenAI SDK clients on the loopback model server, one per failure layer (scripted replies, not a
// real model's behaviour).
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentConfig, resolveAgentConfig } from "../src/agents/index.ts";
import { ProbeLine } from "../src/probes/index.ts";
import { appendTrialRecord, readTrialRecords } from "../src/trial/index.ts";
import { UNVERIFIED } from "../src/verify/index.ts";
import { kgate } from "./support/cli.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { CORRECT, DEFAULT, personaScript, probeProject } from "./support/probe-project.ts";
import { makeRecord } from "./support/records.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const PERSONAS = {
  // knows and applies the conventions inline; its sandboxed cell (records below) fails
  knower: { states: { rate: 0.12 }, answers: CORRECT },
  // recites the wrong rate: a knowledge failure
  forgetter: { states: { rate: 0.15 }, answers: DEFAULT },
  // recites 12% (as 0.1200004, inside the 1e-4 tolerance) but answers with 0%: an application failure
  misapplier: { states: { rate: 0.1200004 }, answers: DEFAULT },
  // never gives a JSON block: every convention unstated, so recited wrong
  mumbler: { states: "The rate is twelve percent, I believe.", answers: CORRECT },
};

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(personaScript(PERSONAS));
});
afterAll(async () => {
  await server?.close();
});

describe("kgate probe recite", () => {
  it("names the knowledge, application and harness layers per configuration", async () => {
    const { paths, agents } = probeProject(server, {
      knower: "anthropic",
      forgetter: "openai",
      misapplier: "anthropic",
      mumbler: "openai",
    });
    // A sandboxed +A cell of knower: 1 pass and 2 fails (1/3 <= 1/2: the harness layer); an infra
    // error, another configuration's record and a -A record are left out.
    const knower = resolveAgentConfig("knower", AgentConfig.parse(agents.knower));
    const sandboxRun = path.join(paths.runs, "sandboxed");
    const agent = { name: "knower", digest: knower.digest, harness: "builtin", model: "knower" };
    const passed = { ...UNVERIFIED, status: "pass" as const, reward: 1, score: 1 };
    const failed = { ...UNVERIFIED, status: "fail" as const };
    const records = [
      makeRecord({ trialId: "s0", agent, verdict: passed }),
      makeRecord({ trialId: "s1", agent, verdict: failed }),
      makeRecord({ trialId: "s2", agent, verdict: failed }),
      makeRecord({
        trialId: "s3",
        agent,
        verdict: passed,
        error: { kind: "rate-limit", owner: "provider", message: "x" },
      }),
      makeRecord({ trialId: "s4", agent: { ...agent, digest: "x".repeat(64) }, verdict: passed }),
      makeRecord({ trialId: "s5", agent, condition: "-A", verdict: passed }),
    ];
    for (const r of records) appendTrialRecord(sandboxRun, r);

    const result = await kgateAsync(
      [
        "--root",
        paths.root,
        "probe",
        "recite",
        "demo",
        "-n",
        "2",
        "--run-id",
        "p1",
        "--json",
        "--agent",
        "knower",
        "--agent",
        "forgetter",
        "--agent",
        "misapplier",
        "--agent",
        "mumbler",
        "--against",
        "sandboxed",
      ],
      { KGATE_PROBE_KEY: "sk-loopback" },
    );
    expect(result.stderr).toContain("probe recite demo: run p1, 2 trial(s)");
    expect(result.code).toBe(1);
    const { reports } = JSON.parse(result.stdout) as { reports: Array<Record<string, unknown>> };
    expect(
      reports.map((r) => [
        (r.agent as { name: string }).name,
        r.recitedRight,
        r.inlinePassed,
        r.sandboxed,
        r.layer,
      ]),
    ).toEqual([
      ["knower", 2, 2, { passed: 1, runs: 3 }, "harness"],
      ["forgetter", 0, 0, null, "knowledge"],
      ["misapplier", 2, 0, null, "application"],
      ["mumbler", 0, 2, null, "knowledge"],
    ]);

    // 4 configurations x 2 trials, each an ordinary inline record and one probe line.
    const runDir = path.join(paths.runs, "p1");
    const read = readTrialRecords(runDir);
    expect(read.records).toHaveLength(8);
    expect(new Set(read.records.map((r) => r.form))).toEqual(new Set(["inline"]));
    // Appended as trials finish (two at a time, so in any order): compared in the plan's order.
    const planned = ["knower", "forgetter", "misapplier", "mumbler"];
    const lines = readFileSync(path.join(runDir, "probes.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => ProbeLine.parse(JSON.parse(l)))
      .sort((a, b) => planned.indexOf(a.agent.name) - planned.indexOf(b.agent.name));
    expect(
      lines.map((l) => [l.agent.name, l.conventions.map((c) => [c.name, c.stated, c.correct, c.gated])]),
    ).toEqual([
      ["knower", [["rate", 0.12, true, true]]],
      ["knower", [["rate", 0.12, true, true]]],
      ["forgetter", [["rate", 0.15, false, true]]],
      ["forgetter", [["rate", 0.15, false, true]]],
      ["misapplier", [["rate", 0.1200004, true, true]]],
      ["misapplier", [["rate", 0.1200004, true, true]]],
      ["mumbler", [["rate", undefined, false, true]]],
      ["mumbler", [["rate", undefined, false, true]]],
    ]);
    expect(JSON.parse(readFileSync(path.join(runDir, "recite.json"), "utf8")).reports).toHaveLength(4);

    // Turn 1 carries the artefact and the data and asks for "rate"; turn 2 the instruction verbatim.
    // (trials run two at a time: take one conversation's turn 1 and turn 2 by their message count)
    const knowerCalls = server.requests.filter((r) => r.body.model === "knower");
    const turnOf = (count: number) =>
      knowerCalls.find((r) => (r.body.messages as unknown[]).length === count)!;
    const knowerRequests = [turnOf(1), turnOf(3)];
    // Anthropic user text arrives as text blocks (a stable cached prefix): read it as one string.
    const text = (content: unknown) =>
      typeof content === "string"
        ? content
        : (content as Array<{ text?: string }>).map((b) => b.text ?? "").join("\n");
    const [first, second] = knowerRequests.map((r) =>
      (r.body.messages as Array<{ role: string; content: unknown }>).map((m) => ({
        ...m,
        content: text(m.content),
      })),
    );
    const instruction = readFileSync(path.join(paths.tasks, "demo", "instruction.md"), "utf8");
    const artefact = readFileSync(path.join(paths.artefacts, "demo", "artefact.md"), "utf8");
    expect(first).toHaveLength(1);
    expect(first![0]!.content).toContain(artefact);
    expect(first![0]!.content).toContain("- rate: a number");
    expect(second).toHaveLength(3);
    expect(second![2]!.content).toContain(instruction);
  });

  it("says why it cannot run: an unknown configuration, a missing key (exit 2)", () => {
    const { paths } = probeProject(server, { knower: "anthropic" });
    const unknown = kgate(["--root", paths.root, "probe", "recite", "demo", "--agent", "nobody"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      '"nobody" is not a configuration in kgate.config.json (configured: knower)',
    );
    const keyless = kgate(["--root", paths.root, "probe", "recite", "demo", "--agent", "knower"], {
      env: { KGATE_PROBE_KEY: "" },
    });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain("needs the environment variable KGATE_PROBE_KEY");
  });
});
