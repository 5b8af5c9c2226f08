// `kgate run --monitor` end to end: a scripted agent (loopback model server, real Anthropic SDK
// client, real sandbox) that keeps its answer under +A and withdraws it under -A; the probes go on in
// the same conversation, their tokens are recorded apart, and `kgate monitor analyse <run>` gives
// the delta and profile worked out below. Scripted replies: no real model's behaviour.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEEP_QUESTION } from "../src/monitor/index.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const ARTEFACT = "docs/internal/specification.md";
// The scaffolded task: widget 3 and gadget 5 with the artefact's 12% markup; 0% by default.
const CORRECT = "item,value\nwidget,3.36\ngadget,5.60\n";
const DEFAULT = "item,value\nwidget,3.00\ngadget,5.00\n";
const usage = { input: 1000, output: 100 };

type Block = { type?: string; text?: string; content?: unknown };
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((b: Block) => (b.type === "text" ? (b.text ?? "") : textOf(b.content))).join("\n")
      : "";

// The prospective configuration's choices, one per -A trial in order (concurrency 1).
const CHOICES = ["REQUEST_SPEC", "DECLINE", "Answer directly."];
let choiceIndex = 0;

/** Anthropic Messages requests: the system prompt says whether the artefact is listed (+A). */
function script(request: SeenRequest) {
  const body = request.body as { system?: unknown; messages: { role: string; content: unknown }[] };
  const withArtefact = textOf(body.system).includes(ARTEFACT);
  const last = textOf(body.messages.at(-1)?.content);
  const assistantTurns = body.messages.filter((m) => m.role === "assistant").length;
  if (last.includes("ANSWER_DIRECTLY, REQUEST_SPEC or DECLINE"))
    return { text: CHOICES[choiceIndex++ % CHOICES.length], usage: { input: 300, output: 3 } };
  // The prospective configuration first hashes the specification when it has one.
  if (request.body.model === "scripted-prospective" && withArtefact && assistantTurns === 0)
    return {
      text: "checking",
      toolCalls: [{ name: "bash", input: { command: `sha256sum ${ARTEFACT}` } }],
      usage,
    };
  if (last.includes("KEEP or WITHDRAW")) {
    if (withArtefact) return { text: "KEEP", usage: { input: 50, output: 2 } };
    // Under -A the first reply names both words (unreadable); the re-ask gets a clear WITHDRAW.
    return last.startsWith(KEEP_QUESTION.prompt)
      ? { text: "Hard call: KEEP or WITHDRAW?", usage: { input: 50, output: 8 } }
      : { text: "WITHDRAW.", usage: { input: 60, output: 3 } };
  }
  if (last.includes("BET or NO_BET"))
    return { text: withArtefact ? "**BET**" : "no bet", usage: { input: 70, output: 2 } };
  if (
    assistantTurns === 0 ||
    (request.body.model === "scripted-prospective" && assistantTurns === 1 && withArtefact)
  )
    return {
      text: "writing the result",
      toolCalls: [
        {
          name: "write_file",
          input: { path: "output/result.csv", content: withArtefact ? CORRECT : DEFAULT },
        },
      ],
      usage,
    };
  return { text: "done", toolCalls: [{ name: "finish", input: { summary: "wrote it" } }], usage };
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(script);
});
afterAll(async () => {
  await server?.close();
});

describe("kgate run --monitor with the built-in loop", () => {
  it("asks the probes after each trial and analyses them per configuration", {
    timeout: 300_000,
  }, async () => {
    sandboxImage();
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    writeJson(paths.config, {
      agents: {
        scripted: {
          harness: "builtin",
          provider: "anthropic",
          model: "scripted-monitor",
          baseUrl: server.anthropicUrl,
          apiKeyEnv: "KGATE_MONITOR_KEY",
          retry: { maxRetries: 0 },
        },
      },
    });
    const env = { KGATE_MONITOR_KEY: "sk-loopback" };
    const run = (condition: string) =>
      kgateAsync(
        [
          "--root",
          paths.root,
          "run",
          "demo",
          "--agent",
          "scripted",
          "--condition",
          condition,
          "-n",
          "2",
          "--run-id",
          "mon",
          "--monitor",
          "--json",
        ],
        env,
      );
    const plus = await run("+A");
    expect(plus.code, plus.stderr).toBe(0);
    const minus = await run("-A");
    expect(minus.code, minus.stderr).toBe(0);
    const records = [...JSON.parse(plus.stdout).records, ...JSON.parse(minus.stdout).records];

    for (const r of records.slice(0, 2)) {
      expect(r.verdict.status).toBe("pass");
      // The trial's own usage: write_file and finish turns only (2 x 1000 in, 2 x 100 out).
      expect(r.usage).toMatchObject({ modelCalls: 2, inputTokens: 2000, outputTokens: 200 });
      expect(r.monitor.retrospective).toMatchObject({
        mode: "same-conversation",
        keep: "KEEP",
        bet: "BET",
        error: null,
      });
      // Probe usage apart: KEEP (50 in, 2 out) and BET (70 in, 2 out).
      expect(r.monitor.retrospective.usage).toMatchObject({
        modelCalls: 2,
        inputTokens: 120,
        outputTokens: 4,
      });
    }
    for (const r of records.slice(2)) {
      expect(r.verdict.status).toBe("fail");
      expect(r.monitor.retrospective).toMatchObject({ keep: "WITHDRAW", bet: "NO_BET" });
      expect(r.monitor.retrospective.turns.map((t: { probe: string }) => t.probe)).toEqual([
        "keep",
        "keep",
        "bet",
      ]);
      // KEEP unreadable (50 in, 8 out), re-asked (60 in, 3 out), then BET (70 in, 2 out).
      expect(r.monitor.retrospective.usage).toMatchObject({
        modelCalls: 3,
        inputTokens: 180,
        outputTokens: 13,
      });
    }

    // The probes continue the trial's conversation: the KEEP probe request carries the earlier turns.
    const probe = server.requests.find((q) =>
      textOf((q.body as { messages: { content: unknown }[] }).messages.at(-1)?.content).startsWith(
        KEEP_QUESTION.prompt,
      ),
    )!;
    const history = JSON.stringify(probe.body);
    expect(history).toContain("write_file");
    expect(history).toContain("finish");

    const analysed = await kgateAsync(["--root", paths.root, "monitor", "analyse", "mon", "--json"]);
    expect(analysed.code, analysed.stderr).toBe(0);
    const analysis = JSON.parse(analysed.stdout);
    expect(analysis.configurations).toHaveLength(1);
    // 2 correct (+A), both KEEP: kc = 100%; 2 incorrect (-A), none KEEP: ki = 0%; delta = 100 - 0 =
    // 100 pp; KEEP rate 2/4 = 50% (< 95: not A; > 10: not B); delta >= 15: profile C. WITHDRAW
    // under -A: 2/2 = 100%. Probe tokens: 2 x (120 + 4) + 2 x (180 + 13) = 248 + 386 = 634 in 10 calls.
    expect(analysis.configurations[0]).toMatchObject({
      agent: "scripted",
      model: "scripted-monitor",
      summary: { n: 4, kcRate: 100, kiRate: 0, withdrawDelta: 100, keepRate: 50, contradiction: 0 },
      interval: { low: 100, high: 100 },
      profile: "C",
      withdrawRateMinusA: 100,
      probeTokens: 634,
      probeCalls: 10,
    });
    expect(
      analysis.cells.map((c: { condition: string; summary: { keepRate: number } }) => [
        c.condition,
        c.summary.keepRate,
      ]),
    ).toEqual([
      ["+A", 100],
      ["-A", 0],
    ]);
    const table = await kgateAsync([
      "--root",
      paths.root,
      "monitor",
      "analyse",
      path.join(paths.runs, "mon"),
    ]);
    expect(table.stdout).toMatch(
      /\| scripted \| scripted-monitor \| [0-9a-f]{12} \| 4 \| 100\.0 \| 0\.0 \| 100\.0 \| \[100\.0, 100\.0\] \| C \| 100\.0 \|/,
    );
  });

  it("asks the prospective choice before -A trials: REQUEST_SPEC places the artefact byte-identically", {
    timeout: 300_000,
  }, async () => {
    sandboxImage();
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    writeJson(paths.config, {
      agents: {
        chooser: {
          harness: "builtin",
          provider: "anthropic",
          model: "scripted-prospective",
          baseUrl: server.anthropicUrl,
          apiKeyEnv: "KGATE_MONITOR_KEY",
          retry: { maxRetries: 0 },
        },
      },
    });
    choiceIndex = 0;
    const ran = await kgateAsync(
      [
        "--root",
        paths.root,
        "run",
        "demo",
        "--agent",
        "chooser",
        "--condition",
        "-A",
        "-n",
        "3",
        "--run-id",
        "pro",
        "--prospective",
        "--json",
      ],
      { KGATE_MONITOR_KEY: "sk-loopback" },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const [spec, declined, direct] = JSON.parse(ran.stdout).records;
    const artefactSha = createHash("sha256")
      .update(readFileSync(path.join(paths.artefacts, "demo", "artefact.md")))
      .digest("hex");

    // REQUEST_SPEC: the cell stays -A, the artefact's own bytes were placed and the record says so.
    expect(spec).toMatchObject({ condition: "-A", artefactDigest: artefactSha, verdict: { status: "pass" } });
    expect(spec.monitor.prospective).toMatchObject({
      choice: "REQUEST_SPEC",
      artefactPlaced: true,
      placedDigest: artefactSha,
      usage: { modelCalls: 1, inputTokens: 300, outputTokens: 3 },
    });
    // Inside the container the placed file hashes to the same digest (the agent's sha256sum).
    const trajectory = readFileSync(path.join(paths.runs, "pro", spec.trajectory), "utf8");
    expect(trajectory).toContain(`${artefactSha}  ${ARTEFACT}`);

    // DECLINE: no sandbox, no verdict; ANSWER_DIRECTLY: a plain -A trial, wrong by construction.
    expect(declined.monitor.prospective).toMatchObject({
      choice: "DECLINE",
      artefactPlaced: false,
      placedDigest: null,
    });
    expect(declined).toMatchObject({ verdict: { status: "unverified" }, outputs: [], artefactDigest: null });
    expect(declined.phases.create).toBeUndefined();
    expect(direct.monitor.prospective).toMatchObject({ choice: "ANSWER_DIRECTLY", artefactPlaced: false });
    expect(direct).toMatchObject({ artefactDigest: null, verdict: { status: "fail" } });

    const analysed = await kgateAsync(["--root", paths.root, "monitor", "analyse", "pro", "--json"]);
    // One of each choice: 33.3% each; payoff (0.5 spec right + 0.25 decline + 0 direct wrong) / 3 = 0.25.
    const mix = JSON.parse(analysed.stdout).configurations[0].prospective;
    expect(mix).toMatchObject({ n: 3, unparsed: 0 });
    expect(mix.direct).toBeCloseTo(100 / 3, 9);
    expect(mix.requestSpec).toBeCloseTo(100 / 3, 9);
    expect(mix.meanPayoff).toBeCloseTo(0.25, 12);
  });

  it("kgate calibrate --monitor puts a monitoring section in the calibration report", {
    timeout: 300_000,
  }, async () => {
    sandboxImage();
    const paths = tempProject();
    scaffoldTask(paths, { id: "demo", gate: "convention" });
    const agent = (model: string) => ({
      harness: "builtin",
      provider: "anthropic",
      model,
      baseUrl: server.anthropicUrl,
      apiKeyEnv: "KGATE_MONITOR_KEY",
      retry: { maxRetries: 0 },
    });
    writeJson(paths.config, { agents: { big: agent("scripted-big"), small: agent("scripted-small") } });
    const args = ["--root", paths.root, "calibrate", "demo", "--frontier", "big", "--mid", "small"];
    const ran = await kgateAsync([...args, "-n", "1", "--no-controls", "--monitor", "--run-id", "cal"], {
      KGATE_MONITOR_KEY: "sk-loopback",
    });
    expect(ran.stderr).not.toMatch(/^kgate: /m);
    const report = readFileSync(path.join(paths.runs, "cal", "report.md"), "utf8");
    expect(report).toContain("## Monitoring");
    // big: frontier+A passes and is kept, frontier-A fails and is withdrawn: kc 100, ki 0, delta 100,
    // KEEP 1/2 = 50% -> C, WITHDRAW under -A 1/1. small: mid+A only, kept: no incorrect answer, so
    // the delta is undefined; KEEP 1/1 = 100% >= 95 is A by the battery's stated rule (A asks
    // nothing of the delta; the script's thresholds, monitor analyse --profile-rule script, would not).
    expect(report).toMatch(
      /\| big \| scripted-big \| [0-9a-f]{12} \| 2 \| 100\.0 \| 0\.0 \| 100\.0 \| \[100\.0, 100\.0\] \| C \| 100\.0 \|/,
    );
    expect(report).toMatch(
      /\| small \| scripted-small \| [0-9a-f]{12} \| 1 \| 100\.0 \| — \| — \| — \| A \| — \|/,
    );
    // The same section in report.html, before the closing body tag, with the same row for big.
    const html = readFileSync(path.join(paths.runs, "cal", "report.html"), "utf8");
    expect(html).toMatch(/<h2 id="monitoring">Monitoring \(docs\/monitoring\.md\)<\/h2>[\s\S]*<\/body>/);
    expect(html).toMatch(
      /<tr><td>big<\/td><td>scripted-big<\/td><td>[0-9a-f]{12}<\/td><td>2<\/td><td>100\.0<\/td><td>0\.0<\/td><td>100\.0<\/td><td>\[100\.0, 100\.0\]<\/td><td>C<\/td>/,
    );
  });
});
