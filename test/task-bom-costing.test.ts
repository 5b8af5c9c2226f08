// bom-costing: the reference solver on a hand-checked BOM, the committed data and its gate, and the
// Python oracle (run on the host's python3) against the TypeScript reference.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { loadValidTask } from "../src/task/index.ts";
import { roundHalfAway, verifyTrial } from "../src/verify/index.ts";
import { checkGate, generate } from "../tasks/bom-costing/generate.ts";
import verifier, { rollUp } from "../verifiers/bom-costing.ts";
import { runOracleOnHost } from "./support/oracle-host.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

// A-1 = 2 x P1 (1.00) + 1 x B-1;  B-1 = 3 x P2 (2.00) + 1 x P3 (no price);
// C-1 and D-1 contain each other; E-1 = 1 x C-1 + 1 x P1.
const BOM =
  "parent,child,quantity\nA-1,P1,2\nA-1,B-1,1\nB-1,P2,3\nB-1,P3,1\nC-1,D-1,1\nD-1,C-1,2\nE-1,C-1,1\nE-1,P1,1\n";
const PRICES = "part,unit_price\nP1,1.00\nP2,2.00\n";

const costs = (c: Parameters<typeof rollUp>[2]) =>
  Object.fromEntries(rollUp(BOM, PRICES, c).map((r) => [r.assembly, r.unit_cost]));

describe("bom-costing reference solver on a hand-checked BOM", () => {
  it("artefact: 12% per level compounded, unpriced part at 0.00, cycles at -1.00", () => {
    // B-1 = 1.12 x (3 x 2.00 + 1 x 0.00) = 6.72
    // A-1 = 1.12 x (2 x 1.00 + 6.72) = 1.12 x 8.72 = 9.7664 -> 9.77
    expect(costs(verifier.conventions.artefact)).toEqual({
      "A-1": 9.77,
      "B-1": 6.72,
      "C-1": -1,
      "D-1": -1,
      "E-1": -1,
    });
  });

  it("perturbed: 15% per level, unpriced part at its priced siblings' mean, cycles at 0.00", () => {
    // P3's only priced sibling in B-1 is P2 (2.00): B-1 = 1.15 x (6.00 + 2.00) = 9.20
    // A-1 = 1.15 x (2.00 + 9.20) = 1.15 x 11.20 = 12.88
    expect(costs(verifier.conventions.variants.perturbed!)).toEqual({
      "A-1": 12.88,
      "B-1": 9.2,
      "C-1": 0,
      "D-1": 0,
      "E-1": 0,
    });
  });

  it("default: a plain material roll-up", () => {
    // B-1 = 6.00, A-1 = 2.00 + 6.00 = 8.00
    expect(costs(verifier.conventions.default)).toEqual({ "A-1": 8, "B-1": 6, "C-1": 0, "D-1": 0, "E-1": 0 });
  });

  it("compressed: the artefact's conventions exactly", () => {
    expect(verifier.conventions.variants.compressed).toEqual(verifier.conventions.artefact);
  });

  it("rounds half away from zero, decimal ties included", () => {
    expect([2.345, -2.345, 0.125, 9.2288, 10.20625, -0.004].map((v) => roundHalfAway(v, 2))).toEqual([
      2.35, -2.35, 0.13, 9.23, 10.21, 0,
    ]);
  });
});

describe("bom-costing data", () => {
  it("is what the committed seeded generator produces, and the gate bites on it", () => {
    const files = generate();
    for (const [name, content] of Object.entries(files)) {
      expect(readFileSync(path.join(ROOT, "tasks/bom-costing/environment", name), "utf8")).toBe(content);
    }
    expect(() => checkGate(files)).not.toThrow();
    const total = Object.values(files).reduce((n, t) => n + t.length, 0);
    expect(total).toBeGreaterThan(2_000);
    expect(total).toBeLessThan(20_000);
  });

  it("gives different answers under the default conventions and the artefact's", () => {
    const files = generate();
    const artefact = rollUp(files["bom.csv"]!, files["prices.csv"]!, verifier.conventions.artefact);
    const fallback = rollUp(files["bom.csv"]!, files["prices.csv"]!, verifier.conventions.default);
    const same = artefact.filter((row, i) => row.unit_cost === fallback[i]!.unit_cost);
    expect(same).toEqual([]);
  });
});

describe("bom-costing oracle (Python, on the host, reading the specification it is given)", () => {
  const task = loadValidTask(projectPaths(ROOT), "bom-costing");

  it("passes under +A", async () => {
    const run = runOracleOnHost(task, "+A");
    expect(run.stderr).toBe("");
    expect((await verifyTrial(task, run.outputs)).status).toBe("pass");
  });

  it("placed over the perturbed variant, computes exactly the perturbed conventions' answer", async () => {
    const run = runOracleOnHost(task, "variant:perturbed");
    const verdict = await verifyTrial(task, run.outputs);
    expect(verdict.attribution).toBe("perturbed-convention:perturbed");
    expect(verdict.agreement?.["perturbed-convention:perturbed"]).toBe(1);
  });

  it("placed over the compressed variant, still passes", async () => {
    expect((await verifyTrial(task, runOracleOnHost(task, "variant:compressed").outputs)).status).toBe(
      "pass",
    );
  });

  it("stops without the specification (-A)", () => {
    const run = runOracleOnHost(task, "-A");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/is not present/);
    expect(run.outputs[0]?.status).toBe("missing");
  });
});
