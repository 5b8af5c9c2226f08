// Calibration end to end: scripted agents whose pass probability per cell is known (seeded) answer
// through the real Anthropic and OpenAI SDK clients from a loopback model server; every trial runs
// in a real sandbox and is verified on the host. The retain, revise and discard paths come out with
// the expected counts, attribution, tokens and cost; the HTML report of the run renders in Chromium
// and its table matches summary.json.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrialRecord } from "../src/record/index.ts";
import { RunSummary } from "../src/report/index.ts";
import { scaffoldTask } from "../src/task/index.ts";
import { readTrialRecords } from "../src/trial/index.ts";
import { openInChromium } from "./support/chromium.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { tempProject, writeJson } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";
import { expectedPasses, kgateAsync, type PolicyOptions, scriptedPolicy } from "./support/scripted-model.ts";

const FRONTIER = "frontier-model";
const MID = "mid-model";

// The scaffolded task: input.csv has widget,3 and gadget,5; the artefact's markup is 12%, the
// default assumption 0%, the perturbed variant's 15% (see its verifier).
const POLICY: PolicyOptions = {
  seed: 7,
  artefactPath: "docs/internal/specification.md",
  perturbedMarker: "Perturbed variant",
  output: {
    path: "output/result.csv",
    correct: "item,value\nwidget,3.36\ngadget,5.60\n",
    default: "item,value\nwidget,3.00\ngadget,5.00\n",
    perturbed: "item,value\nwidget,3.45\ngadget,5.75\n",
  },
  odds: {
    // Gated: the frontier agent solves it with the artefact, nobody without; the mid agent rarely.
    keep: { [FRONTIER]: { "+A": 0.9, "-A": 0, perturbed: 0 }, [MID]: { "+A": 0.15 } },
    // The agent ignores what the artefact says: the perturbed control passes.
    shaky: { [FRONTIER]: { "+A": 1, "-A": 0, perturbed: 1 }, [MID]: { "+A": 0 } },
    // Solvable without the artefact: no gate.
    leaky: { [FRONTIER]: { "+A": 1, "-A": 1, perturbed: 0 }, [MID]: { "+A": 0.5 } },
    // For sequential screening: clear-cut cells, decided by the SPRT after a known number of trials.
    screened: { [FRONTIER]: { "+A": 1, "-A": 0 }, [MID]: { "+A": 0 } },
  },
};

let server: ModelServer;

/** frontier (Anthropic wire, priced) and mid (OpenAI wire, unpriced), both on the loopback server. */
function agents() {
  return {
    frontier: {
      harness: "builtin",
      provider: "anthropic",
      model: FRONTIER,
      baseUrl: server.anthropicUrl,
      apiKeyEnv: "KGATE_E2E_KEY",
      pricing: { inputPerMTok: 15, outputPerMTok: 75 },
      retry: { maxRetries: 0 },
    },
    mid: {
      harness: "builtin",
      provider: "openai",
      model: MID,
      baseUrl: server.openaiUrl,
      apiKeyEnv: "KGATE_E2E_KEY",
      retry: { maxRetries: 0 },
    },
  };
}
const policy = scriptedPolicy(POLICY);

beforeAll(async () => {
  server = await startModelServer(policy.script);
});
afterAll(async () => {
  await server?.close();
});

describe("calibration with scripted agents through the loopback model server", () => {
  it("retains, revises and discards as the known pass probabilities say", async () => {
    sandboxImage();
    const paths = tempProject();
    for (const id of ["keep", "shaky", "leaky"]) {
      scaffoldTask(paths, { id, gate: "convention" });
      appendFileSync(path.join(paths.tasks, id, "instruction.md"), `\n(batch: ${id})\n`);
    }
    writeJson(paths.config, {
      agents: agents(),
      calibration: { n: 5, concurrency: 3, providerConcurrency: { anthropic: 2, openai: 1 } },
    });

    const result = await kgateAsync(["--root", paths.root, "calibrate", "--run-id", "e2e", "--no-curtail"], {
      KGATE_E2E_KEY: "sk-loopback",
    });
    expect(result.stderr).toMatch(
      // the mid configuration has no prices: its mid+A cell's 5 trials in each of 3 tasks are unpriced
      /^trials 60\/60 · pass \d+ · fail \d+ · infra 0 · running 0 · spent [\d.]+k tokens · \$\d+\.\d\d \(\+15 unpriced: no pricing in their configuration\)$/m,
    );
    expect(result.code).toBe(1);

    const runDir = path.join(paths.runs, "e2e");
    const summary = RunSummary.parse(JSON.parse(readFileSync(path.join(runDir, "summary.json"), "utf8")));
    expect(summary.tasks.map((t) => [t.id, t.decision])).toEqual([
      ["keep", "retain"],
      ["leaky", "discard"],
      ["shaky", "revise"],
    ]);
    const cell = (task: string, spec: string) =>
      summary.cells.find((c) => c.task === task && c.spec === spec)!;
    const kinds = [
      ["frontier+A", FRONTIER, "+A"],
      ["frontier-A", FRONTIER, "-A"],
      ["mid+A", MID, "+A"],
      ["control", FRONTIER, "perturbed"],
    ] as const;
    for (const task of ["keep", "shaky", "leaky"]) {
      for (const [spec, model, kind] of kinds) {
        const c = cell(task, spec);
        expect({ task, spec, pass: c.counts.pass, runs: c.counts.runs }).toEqual({
          task,
          spec,
          pass: expectedPasses(POLICY, task, model, kind, 5),
          runs: 5,
        });
      }
    }
    // Failure attribution: ignorance without the artefact, the perturbed conventions under the control.
    expect(cell("keep", "frontier-A").attribution["default-convention"]).toBe(5);
    expect(cell("keep", "control").attribution.perturbed).toEqual({ perturbed: 5 });
    expect(summary.tasks.find((t) => t.id === "shaky")!.reasons).toEqual([
      "control passed 5/5 (100%): 5 passes show p(control) > 0, so it misses p(control) = 0: the perturbed artefact still passes, so success does not track its content",
    ]);
    expect(summary.tasks.find((t) => t.id === "leaky")!.reasons).toEqual([
      "frontier-A passed 5/5 (100%): 5 passes show p(frontier-A) > 0, so it misses p(frontier-A) = 0",
    ]);
    // Usage from the wire: 1200 input and 150 output tokens per model call; cost only where priced.
    const frontier = cell("keep", "frontier+A").usage;
    expect(frontier.inputTokens).toBe(5 * 3 * 1200);
    expect(frontier.costUsd).toBeCloseTo((5 * 3 * (1200 * 15 + 150 * 75)) / 1e6, 9);
    expect(cell("keep", "mid+A").usage).toMatchObject({ costUsd: 0, costUnknown: 5 });
    // Model calls of the frontier (Anthropic wire): 45 trials (3 tasks x 3 frontier cells x 5) of 3
    // calls each, but for the 15 -A trials of 2 calls: 45 * 3 - 15 = 120 by the attempts that count.
    // An attempt retried after an infrastructure error (a loaded machine's) made its calls too: the
    // server saw exactly the calls of every attempt recorded, whatever the load.
    const frontierRecords = readTrialRecords(runDir).records.filter((r) => r.agent.model === FRONTIER);
    const calls = (records: readonly TrialRecord[]) => records.reduce((n, r) => n + r.usage.modelCalls, 0);
    const counted = [
      ...new Map(
        frontierRecords
          .slice()
          .sort((a, b) => a.attempt - b.attempt)
          .map((r) => [`${r.task.id} ${r.condition} ${r.index}`, r]),
      ).values(),
    ];
    expect(counted).toHaveLength(45);
    expect(calls(counted)).toBe(45 * 3 - 15);
    expect(server.requests.filter((r) => r.api === "anthropic")).toHaveLength(calls(frontierRecords));

    // The report of this real run renders cleanly, and its table is the JSON's.
    const opened = await openInChromium(pathToFileURL(path.join(runDir, "report.html")).href);
    try {
      const rows = await opened.page.$$eval("#table1 tbody tr[data-task]", (trs) =>
        trs.map((tr) => [
          tr.getAttribute("data-task"),
          tr.querySelector("td.decision")!.textContent,
          [...tr.querySelectorAll("td[data-spec][data-passes]")].map(
            (td) =>
              `${td.getAttribute("data-spec")} ${td.getAttribute("data-passes")}/${td.getAttribute("data-runs")}`,
          ),
        ]),
      );
      expect(rows).toEqual(
        summary.tasks.map((t) => [
          t.id,
          t.decision,
          summary.cells
            .filter((c) => c.task === t.id)
            .map((c) => `${c.spec} ${c.counts.pass}/${c.counts.runs}`),
        ]),
      );
      const links = await opened.page.locator("#trials a").count();
      expect(links).toBe(60);
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 600_000);

  it("screens sequentially: more trials only until each clause is decided", async () => {
    sandboxImage();
    const paths = tempProject();
    scaffoldTask(paths, { id: "screened", gate: "convention" });
    appendFileSync(path.join(paths.tasks, "screened", "instruction.md"), "\n(batch: screened)\n");
    writeJson(paths.config, { agents: agents(), calibration: { concurrency: 3 } });
    const result = await kgateAsync(
      [
        "--root",
        paths.root,
        "calibrate",
        "--sequential",
        "--cap",
        "14",
        "--no-controls",
        "--run-id",
        "seq",
        "--json",
      ],
      { KGATE_E2E_KEY: "sk-loopback" },
    );
    expect(result.code).toBe(0);
    const summary = RunSummary.parse(JSON.parse(result.stdout));
    expect(summary.mode).toBe("sequential");
    // SPRT at 95%: p = 1 meets >= 0.6 after 6 passes, p = 0 meets <= 0.4 after 6 failures. "= 0" is met
    // once 1 - 0.05^(1/n) < 0.2: n > ln 0.05 / ln 0.8 = 13.4, so 14 trials, bound 1 - e^(-2.9957/14) = 0.1926.
    expect(summary.cells.map((c) => [c.spec, c.counts.pass, c.counts.runs, c.clause?.verdict])).toEqual([
      ["frontier+A", 6, 6, "met"],
      ["frontier-A", 0, 14, "met"],
      ["mid+A", 0, 6, "met"],
    ]);
    expect(summary.tasks[0]!.decision).toBe("retain");
    expect(summary.tasks[0]!.reasons[1]).toBe(
      "frontier-A passed 0/14 (0%): p(frontier-A) < 0.193 at 95% (one-sided), within the screening bound 0.2",
    );
  }, 600_000);
});
