// `kgate triage tasks:<id>,<id>` end to end on gated tasks: phase 0 runs each task under +A and its
// -A twin as real sandboxed trials (real containers, host verification) with a scripted agent on the
// loopback model server (scripted, not a real model); a scripted planner that leaves out units
// whose working directory lacks the specification; -A injection at r = 0, 0.5, 1 and D / W.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scaffoldTask } from "../src/task/index.ts";
import { PlanRecord } from "../src/triage/index.ts";
import { type ScriptStep, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { kgateAsync, scriptedPolicy } from "./support/scripted-model.ts";

const MODEL = "frontier-scripted";
const ARTEFACT = "docs/internal/specification.md";
// The scaffolded task: input.csv has widget,3 and gadget,5; the artefact's markup is 12%.
const policy = scriptedPolicy({
  seed: 1,
  artefactPath: ARTEFACT,
  perturbedMarker: "Perturbed variant",
  output: {
    path: "output/result.csv",
    correct: "item,value\nwidget,3.36\ngadget,5.60\n",
    default: "item,value\nwidget,3.00\ngadget,5.00\n",
    perturbed: "item,value\nwidget,3.45\ngadget,5.75\n",
  },
  // with the artefact the scripted agent always writes the right answer; without it, never
  odds: { keep: { [MODEL]: { "+A": 1, "-A": 0 } }, other: { [MODEL]: { "+A": 1, "-A": 0 } } },
});

type Message = { role: string; content: string | Array<{ type: string; text?: string }> };
const textOf = (m: Message) =>
  typeof m.content === "string" ? m.content : m.content.map((b) => b.text ?? "").join("");

/** The scripted planner: every unit whose file list holds the specification, B split evenly. */
function planReply(prompt: string): string {
  const budget = Number(/You have (\d+) output tokens/.exec(prompt)![1]);
  const units = [...prompt.matchAll(/^### (\S+) \(value 1\)$/gm)].map((m) => m[1]!);
  const blocks = prompt.split(/^### /m).slice(1);
  const kept = units.filter((_, i) => blocks[i]!.includes(ARTEFACT));
  const tokens = kept.length === 0 ? 0 : Math.floor(budget / kept.length);
  return JSON.stringify({ plan: kept.map((id) => ({ id, tokens })) });
}

function script(request: SeenRequest, index: number): ScriptStep {
  const first = textOf((request.body.messages as Message[])[0]!);
  if (first.includes("## Tasks")) return { text: planReply(first), usage: { output: 80 } };
  return (policy.script as (r: SeenRequest, i: number) => ScriptStep)(request, index);
}

describe("kgate triage on gated tasks", () => {
  it("runs +A and -A trials in the sandbox, injects -A twins, and scores D and W", {
    timeout: 300_000,
  }, async () => {
    sandboxImage();
    const server = await startModelServer(script, { requireKey: "sk-tasks" });
    try {
      const paths = tempProject();
      for (const id of ["keep", "other"]) {
        scaffoldTask(paths, { id, gate: "convention" });
        appendFileSync(path.join(paths.tasks, id, "instruction.md"), `\n(batch: ${id})\n`);
      }
      writeJson(paths.config, {
        agents: {
          frontier: {
            harness: "builtin",
            provider: "anthropic",
            model: MODEL,
            baseUrl: server.anthropicUrl,
            apiKeyEnv: "KGATE_TRIAGE_TASKS_KEY",
            retry: { maxRetries: 0 },
          },
        },
      });
      const args = ["--root", paths.root, "triage", "tasks:keep,other", "--agent", "frontier"];
      const ran = await kgateAsync(
        [...args, "--alpha", "0.75", "--framing", "neutral", "--inject", "0,0.5,1", "--run-id", "g1"],
        {
          KGATE_TRIAGE_TASKS_KEY: "sk-tasks",
        },
      );
      expect(ran.stderr).not.toContain("error");
      expect(ran.code).toBe(0);

      const run = path.join(paths.runs, "g1");
      const lines = (f: string) =>
        readFileSync(path.join(run, f), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
      // each scripted turn reports 150 output tokens: +A reads the specification, writes, finishes
      // (3 calls = 450); -A writes the default answer and finishes (2 calls = 300)
      // (units run two at a time, so the file's order is the order they ended in: sorted by id here)
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      expect(
        lines("phase0.jsonl")
          .sort(byId)
          .map((r) => [r.id, r.cost, r.correct, r.unsolvable]),
      ).toEqual([
        ["keep+A", 450, true, false],
        ["keep-A", 300, false, true],
        ["other+A", 450, true, false],
        ["other-A", 300, false, true],
      ]);
      // the four trials are real trial records beside the triage files
      const trials = lines("trials.jsonl");
      expect(trials.map((t) => [t.task.id, t.condition, t.verdict.status]).sort()).toEqual([
        ["keep", "+A", "pass"],
        ["keep", "-A", "fail"],
        ["other", "+A", "pass"],
        ["other", "-A", "fail"],
      ]);

      const plans = lines("plans.jsonl").map((l) => PlanRecord.parse(l));
      const at = (ratio: number) => plans.find((p) => p.ratio === ratio)!;
      // r = 0: B = floor(0.75 * (450 + 450)) = 675; oracle 1 (two 450s do not fit); every order solves
      // the first unit and stops at 900 > 675, so V_random = 1 = V_oracle: eta undefined.
      expect(at(0).budget).toBe(675);
      expect(at(0).scores).toMatchObject({ vOracle: 1, vRandom: 1, etaU: null });
      expect(at(0).detection).toBeNull();

      // r = 0.5: one +A unit replaced by its -A twin; B = floor(0.75 * (450 + 300)) = 562.
      // Oracle 1 (450 <= 562). Random: +A first: 450 (+1), 750 > 562 stop -> 1; -A first: 300, 750 > 562
      // -> 0; V_random = 0.5. The planner keeps the +A unit with 562 tokens: U 1, E 1 (450 <= 562).
      // eta = (1 - 0.5) / (1 - 0.5) = 1; D = 1 (the -A twin left out), W = 0.
      const half = at(0.5);
      expect(half.unsolvable).toHaveLength(1);
      expect(half.budget).toBe(562);
      expect(half.plan?.steps).toEqual([{ id: half.units.find((u) => u.endsWith("+A"))!, tokens: 562 }]);
      expect(half.scores).toMatchObject({ vOracle: 1, vRandom: 0.5, vU: 1, vE: 1, etaU: 1, etaE: 1 });
      expect(half.detection).toBe(1);
      expect(half.waste).toBe(0);

      // r = 1: both -A twins; the optimal plan is empty and so is the scripted one: D = 1, W = 0
      const all = at(1);
      expect(all.units.sort()).toEqual(["keep-A", "other-A"]);
      expect(all.plan?.steps).toEqual([]);
      expect(all).toMatchObject({ detection: 1, waste: 0 });
      expect(all.scores).toMatchObject({ vOracle: 0, vU: 0, regretU: 0 });

      // resuming a finished run asks nothing more
      const before = server.requests.length;
      const again = await kgateAsync([...args, "--resume", "g1"], { KGATE_TRIAGE_TASKS_KEY: "sk-tasks" });
      expect(again.code).toBe(0);
      expect(server.requests.length).toBe(before);

      // a new run reuses the matching trials (same task digest, condition, configuration digest) of
      // run g1 in phase 0: only its plan is asked of the model, and no new trial is recorded
      const reuse = await kgateAsync([...args, "--alpha", "0.75", "--framing", "neutral", "--run-id", "g2"], {
        KGATE_TRIAGE_TASKS_KEY: "sk-tasks",
      });
      expect(reuse.code).toBe(0);
      const asked = server.requests.slice(before);
      expect(asked).toHaveLength(1);
      expect(textOf((asked[0]!.body.messages as Message[])[0]!)).toContain("## Tasks");
      const reused = readFileSync(path.join(paths.runs, "g2", "phase0.jsonl"), "utf8")
        .trim()
        .split("\n");
      expect(reused.map((l) => JSON.parse(l).reply)).toEqual([
        expect.stringMatching(/^reused trial g1\/keep\.with-A\./),
        expect.stringMatching(/^reused trial g1\/keep\.without-A\./),
        expect.stringMatching(/^reused trial g1\/other\.with-A\./),
        expect.stringMatching(/^reused trial g1\/other\.without-A\./),
      ]);
      expect(reused.map((l) => JSON.parse(l).cost)).toEqual([450, 300, 450, 300]);
    } finally {
      await server.close();
    }
  });
});
