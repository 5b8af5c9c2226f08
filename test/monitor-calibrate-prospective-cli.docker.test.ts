// `kgate calibrate --prospective --payoff <file>` end to end: a scripted built-in-loop agent
// (loopback model server, real Anthropic SDK client, real sandboxes) chooses before each frontier -A
// trial; REQUEST_SPEC trials run with the artefact and DECLINE trials run nothing, both are left out
// of the -A cell's rate (counted as unverified), the report's monitoring section gives the choice mix
// and payoff of the cell, and `--resume` finds nothing left to run. Scripted replies: no real model's.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaffoldTask } from "../src/task/index.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const ARTEFACT = "docs/internal/specification.md";
// The scaffolded task: widget 3 and gadget 5 with the artefact's 12% markup; 0% by default.
const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";
const DEFAULT = "item,value\nwidget,3.00\ngadget,5.00\n";
const CHOICES = ["REQUEST_SPEC", "DECLINE", "ANSWER_DIRECTLY", "request spec"];
let choiceIndex = 0;

type Block = { type?: string; text?: string; content?: unknown };
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((b: Block) => (b.type === "text" ? (b.text ?? "") : textOf(b.content))).join("\n")
      : "";
const lastUser = (r: SeenRequest) => textOf((r.body.messages as { content: unknown }[]).at(-1)?.content);

function script(request: SeenRequest) {
  const body = request.body as { system?: unknown; messages: { role: string }[] };
  if (lastUser(request).includes("ANSWER_DIRECTLY, REQUEST_SPEC or DECLINE"))
    return { text: CHOICES[choiceIndex++ % CHOICES.length] };
  const withArtefact = textOf(body.system).includes(ARTEFACT);
  if (body.messages.filter((m) => m.role === "assistant").length === 0)
    return {
      toolCalls: [
        {
          name: "write_file",
          input: { path: "output/result.csv", content: withArtefact ? CORRECT : DEFAULT },
        },
      ],
    };
  return { toolCalls: [{ name: "finish", input: { summary: "wrote it" } }] };
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(script);
});
afterAll(async () => {
  await server?.close();
});

describe("kgate calibrate --prospective", () => {
  it("asks before each -A trial, keeps REQUEST_SPEC and DECLINE out of the -A rate, and resumes", {
    timeout: 600_000,
  }, async () => {
    sandboxImage();
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const agent = (model: string) => ({
      harness: "builtin",
      provider: "anthropic",
      model,
      baseUrl: server.anthropicUrl,
      apiKeyEnv: "KGATE_PROSPECTIVE_KEY",
      retry: { maxRetries: 0 },
    });
    writeJson(paths.config, { agents: { big: agent("scripted-big"), small: agent("scripted-small") } });
    const payoffFile = path.join(paths.root, "payoff.json");
    writeFileSync(payoffFile, JSON.stringify({ withSpec: { correct: 0.6, wrong: 0.1 }, decline: 0.3 }));
    const env = { KGATE_PROSPECTIVE_KEY: "sk-loopback" };
    const monitorArgs = ["--prospective", "--payoff", payoffFile, "--concurrency", "1", "--json"];
    const args = [
      "--root",
      paths.root,
      "calibrate",
      "demo",
      "--frontier",
      "big",
      "--mid",
      "small",
      "--no-curtail",
    ];
    const ran = await kgateAsync(
      [...args, "-n", "4", "--no-controls", "--run-id", "cal", ...monitorArgs],
      env,
    );
    expect(ran.stderr).not.toMatch(/^kgate: /m);
    expect(ran.stderr).not.toContain("digest other than the plan's");

    // Four -A trials of big, choices in order REQUEST_SPEC, DECLINE, ANSWER_DIRECTLY, "request spec"
    // (read as REQUEST_SPEC): 4 choice turns, none before the +A trials of big or small.
    const asked = server.requests.filter((r) =>
      lastUser(r).includes("ANSWER_DIRECTLY, REQUEST_SPEC or DECLINE"),
    );
    expect(asked).toHaveLength(4);
    expect(asked.every((r) => r.body.model === "scripted-big")).toBe(true);
    // The prompt states the file's schedule (direct defaulted to 1 / 0).
    expect(lastUser(asked[0]!)).toContain("Scored 0.6 if correct, 0.1 if wrong.");
    expect(lastUser(asked[0]!)).toContain("DECLINE: do not attempt it. Scored 0.3.");

    const summary = JSON.parse(ran.stdout);
    const cell = (condition: string, agentName: string) =>
      summary.cells.find(
        (c: { condition: string; agent: string }) => c.condition === condition && c.agent === agentName,
      );
    // -A: the two REQUEST_SPEC trials ran with the artefact (and passed), DECLINE ran nothing: 3 left
    // out as unverified; the one ANSWER_DIRECTLY trial wrote the default and failed: 0 / 1.
    expect(cell("-A", "big").counts).toMatchObject({ pass: 0, fail: 1, unverified: 3, infra: 0, runs: 1 });
    expect(cell("+A", "big").counts).toMatchObject({ pass: 4, runs: 4 });
    expect(cell("+A", "small").counts).toMatchObject({ pass: 4, runs: 4 });
    expect(summary.warnings.join("\n")).toContain("3 -A trial(s) chose REQUEST_SPEC");

    const records = readFileSync(path.join(paths.runs, "cal", "trials.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const minusA = records.filter((r) => r.condition === "-A");
    expect(minusA.map((r) => [r.monitor.prospective.choice, r.verdict.status]).sort()).toEqual(
      [
        ["ANSWER_DIRECTLY", "fail"],
        ["DECLINE", "unverified"],
        ["REQUEST_SPEC", "pass"],
        ["REQUEST_SPEC", "pass"],
      ].sort(),
    );
    expect(minusA[0].monitor.prospective.schedule).toEqual({
      direct: { correct: 1, wrong: 0 },
      withSpec: { correct: 0.6, wrong: 0.1 },
      decline: 0.3,
    });

    // Payoff under the file's schedule: REQUEST_SPEC correct 0.6 x 2 + DECLINE 0.3 + ANSWER_DIRECTLY
    // wrong 0 = 1.5, over 4 = 0.375. Mix: 1/4 = 25% direct, 2/4 = 50% REQUEST_SPEC, 1/4 = 25% DECLINE;
    // 3 trials are not -A answers.
    const report = readFileSync(path.join(paths.runs, "cal", "report.md"), "utf8");
    expect(report).toContain("### Prospective choice per -A cell (gated task)");
    expect(report).toContain("| big | demo | 4 | 25.0 | 50.0 | 25.0 | 0 | 0.375 | 3 |");

    // The plan keeps the monitoring: a resume takes no monitoring flags, it uses the plan's.
    const plan = JSON.parse(readFileSync(path.join(paths.runs, "cal", "plan.json"), "utf8"));
    expect(plan.monitoring).toEqual({ probes: false, prospective: minusA[0].monitor.prospective.schedule });
    const refused = await kgateAsync(
      ["--root", paths.root, "calibrate", "--resume", "cal", "--prospective"],
      env,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--resume keeps the run's own plan; --prospective cannot change it");

    // Resume with every slot filled: REQUEST_SPEC records match the plan, so nothing runs again.
    const before = server.requests.length;
    const resume = ["--root", paths.root, "calibrate", "--resume", "cal", "--concurrency", "1", "--json"];
    const resumed = await kgateAsync(resume, env);
    expect(resumed.stderr).not.toMatch(/^kgate: /m);
    expect(server.requests.length).toBe(before);
    expect(JSON.parse(resumed.stdout).cells.map((c: { counts: unknown }) => c.counts)).toEqual(
      summary.cells.map((c: { counts: unknown }) => c.counts),
    );

    // Lose the ANSWER_DIRECTLY trial's record (as a crash before it was written): the resume runs
    // that slot again and asks the plan's choice first; the fifth reply is CHOICES[0], REQUEST_SPEC.
    const trialsFile = path.join(paths.runs, "cal", "trials.jsonl");
    const kept = readFileSync(trialsFile, "utf8")
      .trim()
      .split("\n")
      .filter((l) => JSON.parse(l).monitor?.prospective?.choice !== "ANSWER_DIRECTLY");
    writeFileSync(trialsFile, `${kept.join("\n")}\n`);
    const rerun = await kgateAsync(resume, env);
    expect(rerun.stderr).not.toMatch(/^kgate: /m);
    const askedAgain = server.requests
      .slice(before)
      .filter((r) => lastUser(r).includes("REQUEST_SPEC or DECLINE"));
    expect(askedAgain).toHaveLength(1);
    expect(lastUser(askedAgain[0]!)).toContain("Scored 0.6 if correct, 0.1 if wrong.");
    const after = JSON.parse(rerun.stdout);
    // -A now: REQUEST_SPEC x 3 and DECLINE, no -A answer: 0 runs, 4 unverified.
    const minusACell = after.cells.find((c: { condition: string }) => c.condition === "-A");
    expect(minusACell.counts).toMatchObject({
      pass: 0,
      fail: 0,
      unverified: 4,
      runs: 0,
    });
    // Payoff: 0.6 x 3 + 0.3 = 2.1, over 4 = 0.525; REQUEST_SPEC 3/4 = 75%, DECLINE 25%.
    const report2 = readFileSync(path.join(paths.runs, "cal", "report.md"), "utf8");
    expect(report2).toContain("| big | demo | 4 | 0.0 | 75.0 | 25.0 | 0 | 0.525 | 4 |");
  });
});
