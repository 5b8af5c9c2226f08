// The endpoint ping before the first trial (issue 47 item 1): a verb that will call a model pings each
// configuration it needs once and stops with exit 2, naming the configuration, the URL and the fix,
// before any sandbox, run folder or trial; --no-ping skips it (then the trials find the dead endpoint).
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { scaffoldTask } from "../src/task/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { memoProject } from "./support/judge-task.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";

/** A loopback URL that refuses connections: a port that was just listening and is now closed. */
async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return `http://127.0.0.1:${port}/v1`;
}

let server: ModelServer;
let refused: string;
beforeAll(async () => {
  server = await startModelServer([{ text: "unused" }], { requireKey: "sk-good" });
  refused = await refusingUrl();
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  delete process.env.KGATE_PING_GOOD;
  delete process.env.KGATE_PING_BAD;
  delete process.env.KGATE_TEST_JUDGE_KEY;
});

/** Task "demo"; `down` refuses connections, `wrong-key` answers but refuses its key, `up` answers. */
function project() {
  const paths = tempProject();
  scaffoldTask(paths, { id: "demo", gate: "convention" });
  const base = { harness: "builtin", model: "m", retry: { maxRetries: 0 } };
  writeJson(paths.config, {
    agents: {
      down: { ...base, provider: "openai-compatible", baseUrl: refused, apiKeyEnv: "KGATE_PING_GOOD" },
      "wrong-key": {
        ...base,
        provider: "anthropic",
        baseUrl: server.anthropicUrl,
        apiKeyEnv: "KGATE_PING_BAD",
      },
      up: { ...base, provider: "anthropic", baseUrl: server.anthropicUrl, apiKeyEnv: "KGATE_PING_GOOD" },
    },
  });
  process.env.KGATE_PING_GOOD = "sk-good";
  process.env.KGATE_PING_BAD = "sk-wrong";
  return paths;
}

describe("the endpoint ping before the first trial", () => {
  it("kgate run stops at once on a dead endpoint: the configuration, the URL and the fix; no run folder", async () => {
    const paths = project();
    const ran = await kgateInProcess(["--root", paths.root, "run", "demo", "--agent", "down"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`down: ${refused}/models unreachable: Connection error. (ECONNREFUSED)`);
    expect(ran.stderr).toContain(
      "fix: start the server at that URL, or correct agents.down.baseUrl in kgate.config.json",
    );
    expect(ran.stderr).toContain("--no-ping skips this check");
    expect(existsSync(paths.runs)).toBe(false);
  });

  it("kgate calibrate pings each configuration once and names every one that does not answer", async () => {
    const paths = project();
    const before = server.modelListCalls.count;
    const ran = await kgateInProcess([
      "--root",
      paths.root,
      "calibrate",
      "demo",
      "--frontier",
      "wrong-key",
      "--mid",
      "down",
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("2 agent configuration(s) did not answer");
    expect(ran.stderr).toContain(
      `wrong-key: ${server.anthropicUrl}/v1/models refused the key in KGATE_PING_BAD (HTTP 401)`,
    );
    expect(ran.stderr).toContain("fix: set a valid key in KGATE_PING_BAD");
    expect(ran.stderr).toContain(`down: ${refused}/models unreachable`);
    // wrong-key runs three cells (frontier+A, frontier-A, the control) and is pinged once: 1 call
    expect(server.modelListCalls.count - before).toBe(1);
    expect(existsSync(paths.runs)).toBe(false);
  });

  it("an endpoint that answers lets the command go on: the probe's trials run", async () => {
    const paths = project();
    const ran = await kgateInProcess([
      "--root",
      paths.root,
      "probe",
      "canary",
      "demo",
      "--agent",
      "up",
      "-n",
      "1",
    ]);
    expect(ran.stderr).not.toContain("did not answer");
    expect(ran.stderr).toMatch(/wrote runs\/\S+\/canary\.json/);
    expect(ran.stderr).not.toContain("provider-unreachable");
  });

  it("--no-ping skips it: the dead endpoint is found by the trials instead", async () => {
    const paths = project();
    const ran = await kgateInProcess([
      "--root",
      paths.root,
      "probe",
      "canary",
      "demo",
      "--agent",
      "down",
      "-n",
      "1",
      "--no-ping",
    ]);
    expect(ran.stderr).not.toContain("did not answer");
    expect(ran.stderr).toContain("errors by kind: provider-unreachable 1");
  });
});

/** Task "markup" whose memo has a judge criterion judged by `judge` (refusing connections); `up` answers. */
function judgedProject() {
  const { paths } = memoProject({ provider: "openai", baseUrl: refused });
  const config = JSON.parse(readFileSync(paths.config, "utf8"));
  config.agents.up = {
    harness: "builtin",
    model: "m",
    provider: "anthropic",
    baseUrl: server.anthropicUrl,
    apiKeyEnv: "KGATE_PING_GOOD",
  };
  writeJson(paths.config, config);
  process.env.KGATE_PING_GOOD = "sk-good";
  process.env.KGATE_TEST_JUDGE_KEY = "sk-judge";
  return paths;
}

describe("the judges a command's tasks need are pinged with its agent", () => {
  const judgeDown = () => `judge: ${refused}/models unreachable: Connection error. (ECONNREFUSED)`;
  const judgeFix = "fix: start the server at that URL, or correct agents.judge.baseUrl in kgate.config.json";

  it("kgate run: the agent answers, the task's judge does not: exit 2 naming the judge, no run folder", async () => {
    const paths = judgedProject();
    const ran = await kgateInProcess(["--root", paths.root, "run", "markup", "--agent", "up"]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("1 agent configuration(s) did not answer");
    expect(ran.stderr).toContain(judgeDown());
    expect(ran.stderr).toContain(judgeFix);
    expect(existsSync(paths.runs)).toBe(false);
  });

  it("kgate exam --tasks --make-reference and kgate triage tasks: the same, before any trial", async () => {
    const paths = judgedProject();
    const exam = await kgateInProcess([
      "--root",
      paths.root,
      "exam",
      "--tasks",
      "markup",
      "--agent",
      "up",
      "--budget",
      "1000",
      "--make-reference",
      "ref.jsonl",
    ]);
    expect(exam.code).toBe(2);
    expect(exam.stderr).toContain(judgeDown());
    const triage = await kgateInProcess(["--root", paths.root, "triage", "tasks:markup", "--agent", "up"]);
    expect(triage.code).toBe(2);
    expect(triage.stderr).toContain(judgeDown());
    expect(existsSync(path.join(paths.root, "ref.jsonl"))).toBe(false);
    expect(existsSync(paths.runs)).toBe(false);
  });
});
