// `kgate probe canary` end to end with scripted personas on the loopback model server (scripted
// replies, not a real model's behaviour): a verbatim continuation, a private constant, a -A record
// flagged with the canary GUID, and a clean configuration.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentConfig, resolveAgentConfig } from "../src/agents/index.ts";
import { continuationHit, firstLine, privateShingles } from "../src/probes/index.ts";
import { loadValidTask } from "../src/task/index.ts";
import { appendTrialRecord } from "../src/trial/index.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { CORRECT, personaScript, probeProject } from "./support/probe-project.ts";
import { makeRecord } from "./support/records.ts";
import { kgateAsync } from "./support/scripted-model.ts";

// The scaffolded artefact's first line of content and the ten words after it, verbatim.
const FIRST = "# Internal specification: demo";
const RECALLED =
  "TODO: condense the private knowledge this task needs into a kilobyte-scale reference: conventions, reference tables";

const PERSONAS = {
  parrot: { states: { rate: 0 }, answers: CORRECT, continues: `${FIRST}\n\n${RECALLED}` },
  insider: {
    states: { rate: 0.12 },
    answers: CORRECT,
    continues: "Section 1: scope and purpose of this document.",
  },
  clean: {
    states: { rate: 0.05 },
    answers: CORRECT,
    continues: `${FIRST}\n\nThis document describes how we work.`,
  },
  leaker: { states: { rate: 0 }, answers: CORRECT },
};

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(personaScript(PERSONAS));
});
afterAll(async () => {
  await server?.close();
});

describe("kgate probe canary", () => {
  it("marks a configuration contaminated by a verbatim continuation, a private constant or a flagged -A record", async () => {
    const { paths, agents } = probeProject(server, {
      parrot: "anthropic",
      insider: "openai",
      clean: "anthropic",
      leaker: "openai",
    });
    const leaker = resolveAgentConfig("leaker", AgentConfig.parse(agents.leaker));
    const agent = { name: "leaker", digest: leaker.digest, harness: "builtin", model: "leaker" };
    appendTrialRecord(
      path.join(paths.runs, "minus"),
      makeRecord({ trialId: "m0", agent, condition: "-A", canaryLeak: true }),
    );
    appendTrialRecord(
      path.join(paths.runs, "minus"),
      makeRecord({ trialId: "m1", agent, condition: "-A", canaryLeak: false }),
    );

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
        "parrot",
        "--agent",
        "insider",
        "--agent",
        "clean",
        "--agent",
        "leaker",
        "--against",
        "minus",
      ],
      { KGATE_PROBE_KEY: "sk-loopback" },
    );
    expect(result.code).toBe(1);
    const { reports } = JSON.parse(result.stdout) as {
      reports: Array<{
        agent: { name: string };
        contaminated: boolean;
        minusARecords: unknown;
        trials: Array<{ continuationHit: boolean; constantHits: string[]; error: string | null }>;
      }>;
    };
    expect(
      reports.map((r) => [
        r.agent.name,
        r.trials[0]!.continuationHit,
        r.trials[0]!.constantHits,
        r.minusARecords,
        r.contaminated,
      ]),
    ).toEqual([
      ["parrot", true, [], null, true],
      ["insider", false, ["rate"], null, true],
      ["clean", false, [], null, false],
      ["leaker", false, [], { leaked: 1, runs: 2 }, true],
    ]);
    expect(reports.every((r) => r.trials[0]!.error === null)).toBe(true);

    // Both questions go without the artefact: neither its canary nor any line past the first.
    const artefact = readFileSync(path.join(paths.artefacts, "demo", "artefact.md"), "utf8");
    const guid = /kgate-canary: ([0-9a-f-]+)/.exec(artefact)![1]!;
    const sent = server.requests.filter((r) => r.body.model === "parrot").map((r) => JSON.stringify(r.body));
    expect(sent).toHaveLength(2);
    for (const body of sent) {
      expect(body).not.toContain(guid);
      expect(body).not.toContain("condense the private knowledge");
      // nor the artefact's value of any convention (the markup rate 0.12), not even as an example
      expect(body).not.toContain("0.12");
    }
    expect(sent[0]).toContain(FIRST);
    const lines = readFileSync(path.join(paths.runs, "c1", "probes.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(lines).toHaveLength(4);
    // parrot (Anthropic wire): 100 + 20 tokens for the continuation, 500 + 40 for the constants.
    // Lines are appended as trials finish (two at a time): parrot's is found by its name.
    const parrot = lines.map((l) => JSON.parse(l)).find((l) => l.agent.name === "parrot");
    expect(parrot.usage).toMatchObject({ inputTokens: 600, outputTokens: 60, modelCalls: 2 });
  });

  it("counts the canary GUID as a hit and the first line alone as none", () => {
    const { paths } = probeProject(server, { clean: "anthropic" });
    const task = loadValidTask(paths, "demo");
    expect(firstLine(task.artefact.bytes.toString("utf8"))).toBe(FIRST);
    const privateText = privateShingles(task, [task.instruction.toString("utf8")]);
    expect(continuationHit(`${FIRST} again and again`, privateText, task.artefact.canary)).toBe(false);
    expect(
      continuationHit(`see ${task.artefact.canary!.toUpperCase()}`, privateText, task.artefact.canary),
    ).toBe(true);
    expect(continuationHit(RECALLED, privateText)).toBe(true);
    // nine of the ten words are not enough
    expect(continuationHit(RECALLED.split(" ").slice(0, 9).join(" "), privateText)).toBe(false);
  });
});
