// `kgate run --monitor` with an installed harness, end to end: the real Claude Code (pinned, in the
// harness image) runs the library task bom-costing in a real container, driven by the loopback
// scripted model through the relay; after it exits kgate asks KEEP/WITHDRAW and BET/NO_BET in a
// fresh follow-up conversation, host-side, that carries the instruction, Claude Code's final
// `result` and the output it wrote. Scripted replies: no real model's behaviour.
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BET_QUESTION, KEEP_QUESTION } from "../src/monitor/index.ts";
import { projectPaths } from "../src/project.ts";
import { type ModelServer, type SeenRequest, startModelServer, turnIndex } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const REPO = projectPaths(path.resolve(import.meta.dirname, ".."));
const TASK = "bom-costing";
const KEY = "sk-ant-loopback-monitor";
const FINAL = "Wrote output/assembly_costs.csv; marker FINAL-7731.";
const OUTPUT = "assembly,unit_cost\nA-100,12.34\n";
const TASK_USAGE = { input: 1000, output: 100 };

type Block = { type?: string; text?: string; content?: unknown };
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((b: Block) => (b.type === "text" ? (b.text ?? "") : textOf(b.content))).join("\n")
      : "";
const lastUser = (r: SeenRequest) => textOf((r.body.messages as { content: unknown }[]).at(-1)?.content);

/** The probes and the prospective choice (no tools, the probe's words) first; then Claude Code: write the output, then report. */
function policy(request: SeenRequest) {
  const last = lastUser(request);
  // The follow-up KEEP probe's first reply names both words (unreadable): the re-ask gets KEEP.
  if (last.endsWith(KEEP_QUESTION.prompt))
    return { text: "KEEP or WITHDRAW?", usage: { input: 400, output: 5 } };
  if (last === KEEP_QUESTION.reAsk) return { text: "Keep.", usage: { input: 450, output: 2 } };
  if (last === BET_QUESTION.prompt) return { text: "NO_BET", usage: { input: 500, output: 3 } };
  if (last.includes("ANSWER_DIRECTLY, REQUEST_SPEC or DECLINE"))
    return { text: "REQUEST_SPEC", usage: { input: 300, output: 3 } };
  if (!Array.isArray(request.body.tools) || request.body.tools.length === 0)
    return { text: "ok", usage: TASK_USAGE }; // Claude Code's own side calls
  if (turnIndex(request) === 0) {
    const command = `mkdir -p output && printf '${OUTPUT.replace(/\n/g, "\\n")}' > output/assembly_costs.csv`;
    return { toolCalls: [{ name: "Bash", input: { command, description: "write" } }], usage: TASK_USAGE };
  }
  return { text: FINAL, usage: TASK_USAGE };
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer(policy, { requireKey: KEY });
});
afterAll(async () => {
  await server?.close();
});

/** A project holding the library task as committed (task, artefact, verifier importing kgate/verify, audit). */
function libraryProject() {
  const paths = tempProject();
  for (const [from, to] of [
    [REPO.tasks, paths.tasks],
    [REPO.artefacts, paths.artefacts],
  ] as const)
    cpSync(path.join(from, TASK), path.join(to, TASK), { recursive: true });
  cpSync(path.join(REPO.verifiers, `${TASK}.ts`), path.join(paths.verifiers, `${TASK}.ts`));
  cpSync(path.join(REPO.audits, `${TASK}.json`), path.join(paths.audits, `${TASK}.json`));
  mkdirSync(path.join(paths.root, "node_modules"), { recursive: true });
  symlinkSync(REPO.root, path.join(paths.root, "node_modules", "kgate"));
  writeJson(paths.config, {
    agents: {
      cc: {
        harness: "claude-code",
        provider: "anthropic",
        model: "scripted-installed",
        baseUrl: server.anthropicUrl,
        apiKeyEnv: "KGATE_MONITOR_INSTALLED_KEY",
        retry: { maxRetries: 0 },
        pricing: { inputPerMTok: 5, outputPerMTok: 25 },
      },
    },
  });
  return paths;
}

describe("kgate run --monitor with an installed harness (follow-up probes)", () => {
  it("asks the probes in a follow-up that carries the final message and outputs; the verdict stands", {
    timeout: 900_000,
  }, async () => {
    sandboxImage();
    const paths = libraryProject();
    const run = (runId: string, monitor: boolean) =>
      kgateAsync(
        [
          "--root",
          paths.root,
          "run",
          "bom-costing",
          "--agent",
          "cc",
          "--condition",
          "-A",
          "--run-id",
          runId,
          ...(monitor ? ["--monitor"] : []),
          "--json",
        ],
        { KGATE_MONITOR_INSTALLED_KEY: KEY },
      );
    const plain = await run("plain", false);
    expect(plain.code, plain.stderr).toBe(0);
    const before = server.requests.length;
    const monitored = await run("mon", true);
    expect(monitored.code, monitored.stderr).toBe(0);
    expect(monitored.stderr).not.toContain("warning: --monitor");
    const [p] = JSON.parse(plain.stdout).records;
    const [m] = JSON.parse(monitored.stdout).records;

    // The verdict is the same with and without the probes (the same scripted output).
    expect(m.stopReason).toBe("finish");
    expect(m.verdict).toEqual(p.verdict);
    // One made-up assembly row against the task's own list: the verifier fails it.
    expect(p.verdict.status).toBe("fail");
    expect(p.monitor).toBeNull();
    expect(m.monitor.retrospective).toMatchObject({
      mode: "follow-up",
      keep: "KEEP",
      bet: "NO_BET",
      error: null,
    });
    expect(m.monitor.retrospective.turns.map((t: { probe: string }) => t.probe)).toEqual([
      "keep",
      "keep",
      "bet",
    ]);
    // Probe tokens apart: KEEP (400 in, 5 out), its re-ask (450, 2), BET (500, 3): 1350 in, 10 out,
    // 3 calls; cost 1350 x 5/1e6 + 10 x 25/1e6 = 0.00675 + 0.00025 = 0.007 USD.
    expect(m.monitor.retrospective.usage).toMatchObject({
      modelCalls: 3,
      inputTokens: 1350,
      outputTokens: 10,
    });
    expect(m.monitor.retrospective.usage.costUsd).toBeCloseTo(0.007, 9);
    // The trial's own usage holds only Claude Code's calls, each scripted at 1000 in / 100 out: no
    // probe's 400/450/500 is in it.
    expect(m.usage.modelCalls).toBeGreaterThanOrEqual(2);
    expect(m.usage.inputTokens).toBe(1000 * m.usage.modelCalls);
    expect(m.usage.outputTokens).toBe(100 * m.usage.modelCalls);

    // At the wire: the first probe is a fresh conversation (one user message, no tools, no system
    // prompt) sent host-side with the configuration's key, carrying the instruction, Claude Code's
    // final `result` and the output's bytes; then the re-ask and BET continue that conversation.
    const probes = server.requests.slice(before).filter((r) => {
      const last = lastUser(r);
      return (
        last.endsWith(KEEP_QUESTION.prompt) || last === KEEP_QUESTION.reAsk || last === BET_QUESTION.prompt
      );
    });
    expect(probes).toHaveLength(3);
    const first = probes[0]!;
    const messages = first.body.messages as { role: string; content: unknown }[];
    expect(messages).toHaveLength(1);
    expect(first.body.tools ?? []).toEqual([]);
    expect(first.body.system).toBeUndefined();
    const key = first.headers["x-api-key"] ?? first.headers.authorization;
    expect(String(key).replace(/^Bearer\s+/i, "")).toBe(KEY);
    const sent = lastUser(first);
    const instruction = readFileSync(path.join(paths.tasks, TASK, "instruction.md"), "utf8");
    expect(sent).toContain(`<task>\n${instruction}\n</task>`);
    expect(sent).toContain(`<final_message>\n${FINAL}\n</final_message>`);
    expect(sent).toContain(`<output path="output/assembly_costs.csv">\n${OUTPUT}\n</output>`);
    expect(m.monitor.retrospective.turns[0].message).toBe(sent);
    expect((probes[2]!.body.messages as unknown[]).length).toBe(5);
  });

  it("asks the prospective choice host-side; REQUEST_SPEC installs the artefact as under +A", {
    timeout: 900_000,
  }, async () => {
    sandboxImage();
    const paths = libraryProject();
    const before = server.requests.length;
    const ran = await kgateAsync(
      ["--root", paths.root, "run", TASK, "--agent", "cc", "--condition", "-A", "--prospective", "--json"],
      { KGATE_MONITOR_INSTALLED_KEY: KEY },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const [r] = JSON.parse(ran.stdout).records;
    const artefact = createHash("sha256")
      .update(readFileSync(path.join(paths.artefacts, TASK, "artefact.md")))
      .digest("hex");
    expect(r.condition).toBe("-A");
    expect(r.monitor.prospective).toMatchObject({
      choice: "REQUEST_SPEC",
      artefactPlaced: true,
      placedDigest: artefact,
      error: null,
    });
    expect(r.artefactDigest).toBe(artefact);
    // Claude Code got the artefact as under +A: installed as a skill and listed.
    expect(r.artefactListed).toBe(true);
    // The choice's one turn (300 in, 3 out) is apart from the trial's calls (1000 / 100 each).
    expect(r.monitor.prospective.usage).toMatchObject({ modelCalls: 1, inputTokens: 300, outputTokens: 3 });
    expect(r.usage.inputTokens).toBe(1000 * r.usage.modelCalls);
    const choice = server.requests
      .slice(before)
      .filter((q) => lastUser(q).includes("ANSWER_DIRECTLY, REQUEST_SPEC or DECLINE"));
    expect(choice).toHaveLength(1);
    expect(choice[0]!.body.tools ?? []).toEqual([]);
    expect(choice[0]!.body.messages as unknown[]).toHaveLength(1);
  });
});
