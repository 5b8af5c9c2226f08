// paper-index: Brandes betweenness on a hand-checked citation graph under each normalisation, the
// committed data and its gate, and the Python oracle (host python3) against the TypeScript reference.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { loadValidTask } from "../src/task/index.ts";
import { verifyTrial } from "../src/verify/index.ts";
import { checkGate, generate } from "../tasks/paper-index/generate.ts";
import verifier, { centrality } from "../verifiers/paper-index.ts";
import { runOracleOnHost } from "./support/oracle-host.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

// Field 1: W5 cites W4; W4 cites W2 and W3; W2 and W3 both cite W1 (a diamond under a stem).
// Field 2: W7 cites W6. Seven papers in all.
const PAPERS =
  "paper_id,year,title\nW1,2001,a\nW2,2002,b\nW3,2002,c\nW4,2003,d\nW5,2004,e\nW6,2001,f\nW7,2002,g\n";
const CITATIONS = "citing,cited\nW5,W4\nW4,W2\nW4,W3\nW2,W1\nW3,W1\nW7,W6\nW7,W6\nW3,W3\n";

const scores = (c: Parameters<typeof centrality>[2]) =>
  Object.fromEntries(centrality(PAPERS, CITATIONS, c).papers.map((p) => [p.paper_id, p.betweenness]));

describe("paper-index reference solver on a hand-checked graph", () => {
  // Directed shortest paths through an intermediate paper (duplicate and self citations ignored):
  //   W5->W2 via W4 (1 of 1), W5->W3 via W4 (1 of 1), W5->W1 via W4 (2 of 2 paths),
  //   W4->W1 via W2 (1 of 2) and via W3 (1 of 2), W5->W1 via W2 (1 of 2) and via W3 (1 of 2).
  //   Raw: W4 = 1 + 1 + 1 = 3; W2 = 1/2 + 1/2 = 1; W3 = 1; W1 = W5 = W6 = W7 = 0.
  it("artefact: directed, divided by the ordered pairs of the paper's own component", () => {
    // field 1 has n = 5: (n-1)(n-2) = 12 -> W4 = 3/12 = 0.25, W2 = W3 = 1/12; field 2 has n = 2 -> 0
    expect(scores(verifier.conventions.artefact)).toEqual({
      W1: 0,
      W2: 0.083333,
      W3: 0.083333,
      W4: 0.25,
      W5: 0,
      W6: 0,
      W7: 0,
    });
  });

  it("default: directed, divided by the ordered pairs of the whole graph", () => {
    // n = 7: (n-1)(n-2) = 30 -> W4 = 3/30 = 0.1, W2 = W3 = 1/30
    expect(scores(verifier.conventions.default)).toEqual({
      W1: 0,
      W2: 0.033333,
      W3: 0.033333,
      W4: 0.1,
      W5: 0,
      W6: 0,
      W7: 0,
    });
  });

  it("perturbed: undirected, divided by the unordered pairs of the component", () => {
    // Undirected field 1 is the 4-cycle W1-W2-W4-W3-W1 with W5 hanging off W4. Unordered pairs:
    //   {W1,W4}: via W2 or W3 (1/2 each); {W2,W3}: via W1 or W4 (1/2 each);
    //   {W1,W5}: via W4 always, and W2 or W3 (1/2 each); {W2,W5}, {W3,W5}: via W4.
    //   Raw: W4 = 1/2 + 1 + 1 + 1 = 3.5; W2 = W3 = 1/2 + 1/2 = 1; W1 = 1/2.
    //   Pairs: (n-1)(n-2)/2 = 6 -> W4 = 3.5/6 = 0.583333, W2 = W3 = 1/6, W1 = 1/12.
    expect(scores(verifier.conventions.variants.perturbed!)).toEqual({
      W1: 0.083333,
      W2: 0.166667,
      W3: 0.166667,
      W4: 0.583333,
      W5: 0,
      W6: 0,
      W7: 0,
    });
  });

  it("compressed: the artefact's conventions exactly", () => {
    expect(verifier.conventions.variants.compressed).toEqual(verifier.conventions.artefact);
  });
});

describe("paper-index data", () => {
  it("is what the committed seeded generator produces, and the gate bites on it", () => {
    const files = generate();
    for (const [name, content] of Object.entries(files)) {
      expect(readFileSync(path.join(ROOT, "tasks/paper-index/environment", name), "utf8")).toBe(content);
    }
    expect(() => checkGate(files)).not.toThrow();
    const total = Object.values(files).reduce((n, t) => n + t.length, 0);
    expect(total).toBeGreaterThan(2_000);
    expect(total).toBeLessThan(20_000);
  });

  it("gives different answers under the default normalisation and the artefact's", () => {
    const files = generate();
    const answer = (c: Parameters<typeof centrality>[2]) =>
      centrality(files["papers.csv"]!, files["citations.csv"]!, c).papers;
    const artefact = answer(verifier.conventions.artefact);
    const fallback = answer(verifier.conventions.default);
    const differing = artefact.filter((p, i) => Math.abs(p.betweenness - fallback[i]!.betweenness) > 1e-4);
    expect(differing.length).toBeGreaterThanOrEqual(artefact.filter((p) => p.betweenness > 0).length);
  });
});

describe("paper-index oracle (Python, on the host, reading the specification it is given)", () => {
  const task = loadValidTask(projectPaths(ROOT), "paper-index");

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
