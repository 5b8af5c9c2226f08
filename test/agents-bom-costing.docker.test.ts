// The built-in harness on a real task, end to end: Docker sandbox, the real trial runner, the real
// SDK against a loopback model whose scripted "agent" reads what it is offered. Under +A it opens the
// listed costing standard and passes bom-costing; the same script under -A finds nothing to read,
// assumes a plain material roll-up and fails with attribution default-convention.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BuiltinAgent } from "../src/agents/index.ts";
import { projectPaths } from "../src/project.ts";
import { type Condition, loadValidTask } from "../src/task/index.ts";
import { agentConfig } from "./support/agent-context.ts";
import { engineTrials } from "./support/engine.ts";
import {
  lastToolResults,
  type ModelServer,
  type SeenRequest,
  startModelServer,
  systemText,
  turnIndex,
} from "./support/model-server.ts";

const repo = projectPaths(path.resolve(import.meta.dirname, ".."));
const runsDir = mkdtempSync(path.join(tmpdir(), "kgate-bom-runs-"));
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

/** The agent's program: a BOM roll-up with the overhead rate and cycle value it decided on. */
const SOLVER = `import csv, sys
from decimal import Decimal, ROUND_HALF_UP
from fractions import Fraction
rate, cycle = Fraction(sys.argv[1]), sys.argv[2]
kids = {}
for r in csv.DictReader(open("bom.csv")):
    kids.setdefault(r["parent"], []).append((r["child"], int(r["quantity"])))
price = {r["part"]: Fraction(r["unit_price"]) for r in csv.DictReader(open("prices.csv"))}
memo, state = {}, {}
def cyclic(a):
    if state.get(a) == "open": return True
    if a in state: return state[a] == "bad"
    state[a] = "open"
    bad = any(c in kids and cyclic(c) for c, _ in kids[a])
    state[a] = "bad" if bad else "ok"
    return bad
def cost(a):
    if a not in memo:
        memo[a] = (1 + rate) * sum(q * (cost(c) if c in kids else price.get(c, Fraction(0))) for c, q in kids[a])
    return memo[a]
import os
os.makedirs("output", exist_ok=True)
with open("output/assembly_costs.csv", "w") as out:
    out.write("assembly,unit_cost\\n")
    for a in sorted(kids):
        if cyclic(a):
            out.write(f"{a},{cycle}\\n")
        else:
            v = cost(a)
            out.write(f"{a},{(Decimal(v.numerator) / Decimal(v.denominator)).quantize(Decimal('0.01'), ROUND_HALF_UP)}\\n")
`;

/** The scripted agent: read a listed reference if there is one, then decide conventions from what was read. */
function policy(request: SeenRequest) {
  const turn = turnIndex(request);
  const listed = /^- ([^:]+): /m.exec(systemText(request))?.[1];
  if (turn === 0) {
    return listed
      ? {
          text: "Reading the costing standard first.",
          toolCalls: [{ name: "read_file", input: { path: listed } }],
        }
      : {
          text: "No reference listed; looking around.",
          toolCalls: [{ name: "bash", input: { command: "ls -R" } }],
        };
  }
  if (turn === 1)
    return { toolCalls: [{ name: "write_file", input: { path: "rollup.py", content: SOLVER } }] };
  if (turn === 2) {
    const read = request.body.messages as Array<{ content: unknown }>;
    const seen = JSON.stringify(read[2]?.content ?? "");
    const rate = /overhead of \*\*(\d+)%\*\*/.exec(seen)?.[1];
    const sentinel = /Report \*\*(-?\d+\.\d\d)\*\*/.exec(seen)?.[1];
    const args = rate ? `${Number(rate) / 100} ${sentinel ?? "0.00"}` : "0 0.00";
    return {
      toolCalls: [
        {
          name: "bash",
          input: { command: `python3 rollup.py ${args} && head -3 output/assembly_costs.csv` },
        },
      ],
    };
  }
  const ran = lastToolResults(request).join("");
  return {
    text: `Done.\n${ran}`,
    toolCalls: [{ name: "finish", input: { summary: "wrote output/assembly_costs.csv" } }],
  };
}

async function bomTrial(condition: Condition) {
  server = await startModelServer(policy, { requireKey: "sk-bom" });
  const agent = new BuiltinAgent(
    agentConfig("scripted", {
      harness: "builtin",
      provider: "anthropic",
      model: "claude-scripted",
      baseUrl: server.anthropicUrl,
      apiKeyEnv: "KGATE_BOM_KEY",
      pricing: { inputPerMTok: 5, outputPerMTok: 25 },
    }),
    { env: { KGATE_BOM_KEY: "sk-bom" } },
  );
  const task = loadValidTask(repo, "bom-costing");
  const runDir = path.join(runsDir, condition === "+A" ? "with" : "without");
  const [record] = await engineTrials({
    paths: repo,
    task,
    condition,
    agent,
    runId: "bom",
    runDir,
    n: 1,
    retries: 0,
  });
  return record!;
}

describe("scripted agent on bom-costing (built-in harness, Docker, real runner and verifier)", () => {
  it("under +A reads the listed standard, applies its conventions and passes", async () => {
    const record = await bomTrial("+A");
    expect(record.error).toBeNull();
    expect(record.stopReason).toBe("finish");
    expect(record.verdict).toMatchObject({ status: "pass", reward: 1 });
    expect(record.artefactListed).toBe(true);
    expect(record.artefactOpened).toBe(true);
    expect(record.usage.modelCalls).toBe(4);
    expect(record.usage.costUsd).toBeGreaterThan(0);
  });

  it("the same script under -A writes the default-convention answer and fails with attribution default-convention", async () => {
    const record = await bomTrial("-A");
    expect(record.error).toBeNull();
    expect(record.stopReason).toBe("finish");
    expect(record.verdict).toMatchObject({ status: "fail", attribution: "default-convention" });
    expect(record.artefactListed).toBe(false);
    expect(record.artefactOpened).toBeNull();
    expect(record.canaryLeak).toBe(false);
    const first = systemText(server!.requests[0]!);
    expect(first).toContain("Linux sandbox");
    expect(first).not.toContain("docs/costing");
  });
});
