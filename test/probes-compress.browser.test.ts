// `kgate probe compress` (model form) end to end: a fixture task with two marked convention
// sections and a compressed variant, scripted personas on the loopback model server that apply only
// the conventions their prompt shows (scripted replies, not a real model's behaviour); the curve's
// SVG rendered in Chromium.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURVE } from "../src/probes/index.ts";
import { openInChromium } from "./support/chromium.ts";
import { kgate } from "./support/cli.ts";
import { type ModelServer, type SeenRequest, startModelServer } from "./support/model-server.ts";
import { block, OUTPUT, probeProject } from "./support/probe-project.ts";
import { writeJson } from "./support/project.ts";
import { kgateAsync } from "./support/scripted-model.ts";

const HEAD =
  "<!-- kgate-canary: 2b1c1a34-5a43-4b8e-9d2e-1f0e7c6b5a49 -->\n# Internal specification: demo\n\nPricing rules of the office.\n\n";
const RATE =
  "<!-- kgate:convention rate -->\n## Markup\n\nMarkup: 12% on every quantity.\n<!-- /kgate:convention -->\n";
const BONUS =
  "<!-- kgate:convention bonus -->\n## Bonus\n\nBonus: 1.00 added after the markup.\n<!-- /kgate:convention -->\n";
const TAIL = "\nRound to 2 decimals at the end only.\n";
const COMPRESSED = "Markup: 12%. Bonus: 1.00 after markup.\n";

const VERIFIER_BODY = `
export default defineVerifier<{ rate: number; bonus: number }>({
  conventions: {
    artefact: { rate: 0.12, bonus: 1 },
    default: { rate: 0, bonus: 0 },
    variants: { perturbed: { rate: 0.15, bonus: 0 }, compressed: { rate: 0.12, bonus: 1 } },
  },
  solve(files, c) {
    return {
      "output/result.csv": environmentRows(files, "input.csv").map(({ item = "", quantity = "0" }) => ({
        item,
        value: Math.round((Number(quantity) * (1 + c.rate) + c.bonus) * 100) / 100,
      })),
    };
  },
});
`;

/** Applies a convention only when its text is in the prompt: widget 3 and gadget 5 -> q * (1 + rate) + bonus. */
function answer(request: SeenRequest, appliesBonus: boolean): string {
  const prompt = JSON.stringify(request.body.messages);
  const rate = prompt.includes("Markup: 12%") ? 0.12 : 0;
  const bonus = appliesBonus && prompt.includes("Bonus: 1.00") ? 1 : 0;
  const value = (q: number) => (q * (1 + rate) + bonus).toFixed(2);
  return block(OUTPUT, `item,value\nwidget,${value(3)}\ngadget,${value(5)}\n`);
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer((request) => ({
    text: answer(request, request.body.model === "reader"),
    usage: { input: 700, output: 30 },
  }));
});
afterAll(async () => {
  await server?.close();
});

function fixture(artefact = HEAD + RATE + BONUS + TAIL) {
  const project = probeProject(server, { reader: "anthropic", skimmer: "openai" });
  const { paths } = project;
  const verifier = path.join(paths.verifiers, "demo.ts");
  const importLine = readFileSync(verifier, "utf8")
    .split("\n")
    .find((l) => l.startsWith("import "))!;
  writeFileSync(verifier, `// Fixture verifier: markup then bonus.\n${importLine}\n${VERIFIER_BODY}`);
  writeFileSync(path.join(paths.artefacts, "demo", "artefact.md"), artefact);
  writeFileSync(path.join(paths.artefacts, "demo", "variants", "compressed.md"), COMPRESSED);
  const taskFile = path.join(paths.tasks, "demo", "task.json");
  const spec = JSON.parse(readFileSync(taskFile, "utf8"));
  spec.artefact.variants.compressed = { kind: "compressed", description: "the two rules in one line" };
  writeJson(taskFile, spec);
  return project;
}

describe("kgate probe compress (model form)", () => {
  it("finds the load-bearing conventions per configuration and plots the curve", async () => {
    const { paths } = fixture();
    const result = await kgateAsync(
      [
        "--root",
        paths.root,
        "probe",
        "compress",
        "demo",
        "-n",
        "5",
        "--run-id",
        "k1",
        "--json",
        "--agent",
        "reader",
        "--agent",
        "skimmer",
      ],
      { KGATE_PROBE_KEY: "sk-loopback" },
    );
    expect(result.stderr).not.toContain("Error");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      results: Array<{ arm: string; agent: string; bytes: number; passes: number; runs: number }>;
      effects: Array<{ convention: string; agent: string; effect: string }>;
      unmarked: string[];
    };
    const full = Buffer.byteLength(HEAD + RATE + BONUS + TAIL);
    // reader applies what it sees: only the full artefact and the compressed variant hold both rules.
    // skimmer never adds the bonus, so it fails everywhere (its cuts change nothing).
    expect(report.results.map((r) => [r.agent, r.arm, r.bytes, `${r.passes}/${r.runs}`])).toEqual([
      ["reader", "artefact", full, "5/5"],
      ["reader", "variant:compressed", Buffer.byteLength(COMPRESSED), "5/5"],
      ["reader", "cut:rate", Buffer.byteLength(HEAD + BONUS + TAIL), "0/5"],
      ["reader", "cut:bonus", Buffer.byteLength(HEAD + RATE + TAIL), "0/5"],
      ["reader", "0 B", 0, "0/5"],
      ["skimmer", "artefact", full, "0/5"],
      ["skimmer", "variant:compressed", Buffer.byteLength(COMPRESSED), "0/5"],
      ["skimmer", "cut:rate", Buffer.byteLength(HEAD + BONUS + TAIL), "0/5"],
      ["skimmer", "cut:bonus", Buffer.byteLength(HEAD + RATE + TAIL), "0/5"],
      ["skimmer", "0 B", 0, "0/5"],
    ]);
    // Wilson 95%: 5/5 -> [0.566, 1], 0/5 -> [0, 0.434]: disjoint, so both cuts are load-bearing for reader.
    expect(report.effects).toEqual([
      { convention: "rate", agent: "reader", effect: "load-bearing" },
      { convention: "bonus", agent: "reader", effect: "load-bearing" },
      { convention: "rate", agent: "skimmer", effect: "no effect" },
      { convention: "bonus", agent: "skimmer", effect: "no effect" },
    ]);
    expect(report.unmarked).toEqual([]);
    // The cut prompt holds the other section and not the cut one.
    const cutRate = server.requests.find((r) => {
      const text = JSON.stringify(r.body.messages);
      return text.includes("Bonus: 1.00") && !text.includes("Markup: 12%") && text.includes("Pricing rules");
    });
    expect(cutRate).toBeDefined();

    const svgFile = path.join(paths.runs, "k1", "compress.svg");
    const opened = await openInChromium(pathToFileURL(svgFile).href);
    try {
      const points = await opened.page.$$eval("circle.point", (cs) =>
        cs.map((c) => [
          c.getAttribute("data-agent"),
          c.getAttribute("data-arm"),
          Number(c.getAttribute("cx")),
          Number(c.getAttribute("cy")),
        ]),
      );
      expect(points).toHaveLength(10);
      const at = (agent: string, arm: string) => points.find((p) => p[0] === agent && p[1] === arm)!;
      // 0 B at the axis origin: x = left = 60; a pass rate of 0 at the bottom: y = top + height = 36 + 220 = 256.
      expect(at("reader", "0 B").slice(2)).toEqual([CURVE.left, 256]);
      // The full artefact (between 256 B and 1 KiB; the axis tops at 1024 B): linear part 0.2 * 480 = 96 px,
      // then log10(bytes / 256) / log10(1024 / 256) of the remaining 384 px; a pass rate of 1 at y = 36.
      const x = 60 + 96 + (Math.log10(full / 256) / Math.log10(4)) * 384;
      expect(full).toBeGreaterThan(256);
      expect(full).toBeLessThan(1024);
      expect(at("reader", "artefact")[2]).toBeCloseTo(x, 1);
      expect(at("reader", "artefact")[3]).toBe(36);
      const box = await opened.page.$eval("svg", (s) => s.getBoundingClientRect().width);
      expect(box).toBe(60 + 480 + 24);
      expect(opened.problems).toEqual([]);
    } finally {
      await opened.close();
    }
  }, 120_000);

  it("refuses malformed markers with the file and line (exit 2)", () => {
    const { paths } = fixture(HEAD + RATE.replace("<!-- /kgate:convention -->\n", "") + TAIL);
    // --no-ping: no model server answers here, and the markers are what this test asks about
    const result = kgate(
      ["--root", paths.root, "probe", "compress", "demo", "--agent", "reader", "--no-ping"],
      {
        env: { KGATE_PROBE_KEY: "sk-loopback" },
      },
    );
    expect(result.code).toBe(2);
    // HEAD is 5 lines, so the opening marker is on line 6.
    expect(result.stderr).toContain('artefacts/demo/artefact.md:6: section "rate" is never closed');
  });

  it("refuses a section named after no declared convention", () => {
    const { paths } = fixture(HEAD + RATE.replace("convention rate", "convention markup") + TAIL);
    // --no-ping: no model server answers here, and the markers are what this test asks about
    const result = kgate(
      ["--root", paths.root, "probe", "compress", "demo", "--agent", "reader", "--no-ping"],
      {
        env: { KGATE_PROBE_KEY: "sk-loopback" },
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'artefacts/demo/artefact.md:6: "markup" is not a declared convention (declared: rate, bonus)',
    );
  });
});
