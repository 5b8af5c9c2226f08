// clinical-variant: the reference solver on a hand-worked panel under the artefact's, the default and
// the perturbed conventions, the committed (synthetic) data and its gate, and the Python oracle (host
// python3) against the TypeScript reference under +A, the variants and -A.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectPaths } from "../src/project.ts";
import { loadTask, loadValidTask } from "../src/task/index.ts";
import { verifyTrial } from "../src/verify/index.ts";
import { checkGate, generate } from "../tasks/clinical-variant/generate.ts";
import verifier, {
  type ClinicalVariantConventions,
  classifyAll,
  OUTPUT,
} from "../verifiers/clinical-variant.ts";
import { runOracleOnHost } from "./support/oracle-host.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const { artefact, default: defaults, variants } = verifier.conventions;

// ARVN1: LoF, BS1 above 0.0008, BA1 above 0.008, no hotspot. BELT3: GoF, 0.0002, 0.003, hotspot 212-248.
const GENES = "gene,chromosome,transcript,protein_length\nARVN1,3,TX-A,612\nBELT3,7,TX-B,530\n";
const VARIANTS = [
  "variant_id,gene,hgvs_c,hgvs_p,consequence,codon,pop_af,insilico,de_novo,functional",
  "V1,ARVN1,c.118C>T,p.(Arg40Ter),nonsense,40,0,NA,no,none",
  "V2,ARVN1,c.1A>G,p.(Met1?),start_lost,1,0.00003,NA,assumed,none",
  "V3,BELT3,c.689G>A,p.(Arg230His),missense,230,0.00012,0.960,confirmed,none",
  "V4,BELT3,c.300del,p.(Leu100fs),frameshift,100,0,NA,no,damaging",
  "V5,ARVN1,c.899G>A,p.(Gly300Asp),missense,300,0.0012,0.850,no,normal",
  "V6,ARVN1,c.229C>T,p.(Arg77Ter),nonsense,77,0.011,NA,no,none",
  "V7,BELT3,c.150C>T,p.(Leu50=),synonymous,50,0.004,NA,no,none",
  "V8,ARVN1,c.360del,p.(Lys120fs),frameshift,120,0.0005,NA,confirmed,normal",
  "V9,ARVN1,c.599G>A,p.(Ser200Asn),missense,200,0,0.780,confirmed,damaging",
].join("\n");
const env = { "genes.csv": GENES, "variants.csv": `${VARIANTS}\n` };

const classes = (c: ClinicalVariantConventions) =>
  Object.fromEntries(classifyAll(env, c).map((v) => [v.variant_id, [v.points, v.classification]]));

describe("clinical-variant reference solver on a hand-worked panel", () => {
  it("artefact: the gene table, the lab's points and thresholds, and the conflict tie-break", () => {
    // V1: PM2 (0 <= 0.00005) +1, nonsense in a LoF gene +8 = 9 >= 7 -> likely_pathogenic.
    // V2: PM2 +1, start_lost +2, assumed de novo +1 = 4 -> uncertain.
    // V3: 0.00012 is neither above BS1 0.0002 nor at most 0.00005; hotspot (212 <= 230 <= 248) +2,
    //     insilico 0.960 >= 0.95 +2, confirmed +4 = 8 -> likely_pathogenic.
    // V4: PM2 +1, frameshift in a GoF gene 0, damaging +4 = 5 -> uncertain.
    // V5: 0.0012 > BS1 0.0008 -4, insilico 0.850 >= 0.80 +1, normal -4 = -7 <= -7 -> benign.
    // V6: 0.011 > BA1 0.008 (no points), nonsense +8 = 8; pathogenic 8 >= 4 with BA1 -> uncertain.
    // V7: 0.004 > BELT3's BA1 0.003, synonymous -1 = -1; no pathogenic points: BA1 -> benign.
    // V8: 0.0005 <= BS1 0.0008, frameshift +8, confirmed +4, normal -4 = 8; pathogenic 12 >= 4 and
    //     benign -4 <= -4 -> uncertain (8 alone would be likely_pathogenic).
    // V9: PM2 +1, insilico 0.780 in no band, confirmed +4, damaging +4 = 9 -> likely_pathogenic.
    expect(classes(artefact)).toEqual({
      V1: [9, "likely_pathogenic"],
      V2: [4, "uncertain_significance"],
      V3: [8, "likely_pathogenic"],
      V4: [5, "uncertain_significance"],
      V5: [-7, "benign"],
      V6: [8, "uncertain_significance"],
      V7: [-1, "benign"],
      V8: [8, "uncertain_significance"],
      V9: [9, "likely_pathogenic"],
    });
  });

  it("default: every gene LoF at 1% / 5%, every null variant +8, PM2 +2 when absent, no tie-break", () => {
    // V1: absent +2, +8 = 10 -> pathogenic.   V2: 0.00003 is not absent; start_lost +8, assumed +2 = 10 -> pathogenic.
    // V3: no hotspot, insilico >= 0.70 +1, confirmed +4 = 5 -> uncertain (6 starts likely_pathogenic).
    // V4: +2 + 8 + 4 = 14 -> pathogenic.   V5: 0.0012 < 1%: +1 - 4 = -3 -> likely_benign (<= -1).
    // V6: 0.011 > 1% -4, +8 = 4 -> uncertain.   V7: 0.004 < 1%, synonymous -1 -> likely_benign.
    // V8: +8 + 4 - 4 = 8 -> likely_pathogenic.   V9: +2, insilico 0.780 >= 0.70 +1, +4, +4 = 11 -> pathogenic.
    expect(classes(defaults)).toEqual({
      V1: [10, "pathogenic"],
      V2: [10, "pathogenic"],
      V3: [5, "uncertain_significance"],
      V4: [14, "pathogenic"],
      V5: [-3, "likely_benign"],
      V6: [4, "uncertain_significance"],
      V7: [-1, "likely_benign"],
      V8: [8, "likely_pathogenic"],
      V9: [11, "pathogenic"],
    });
  });

  it("perturbed: start_lost +4, the +1 in-silico band from 0.75, likely_pathogenic from 8", () => {
    // V1: 9 >= 8 still likely_pathogenic.   V2: +1 + 4 + 1 = 6 -> uncertain.
    // V3: 8 -> likely_pathogenic.   V9: insilico 0.780 >= 0.75 +1: 10 -> pathogenic. The others as the artefact.
    const perturbed = classes(variants.perturbed!);
    expect(perturbed.V1).toEqual([9, "likely_pathogenic"]);
    expect(perturbed.V2).toEqual([6, "uncertain_significance"]);
    expect(perturbed.V3).toEqual([8, "likely_pathogenic"]);
    expect(perturbed.V9).toEqual([10, "pathogenic"]);
    const changed = Object.keys(perturbed).filter(
      (id) => JSON.stringify(perturbed[id]) !== JSON.stringify(classes(artefact)[id]),
    );
    expect(changed).toEqual(["V2", "V9"]);
  });

  it("compressed: the artefact's conventions exactly", () => {
    expect(variants.compressed).toEqual(artefact);
  });

  it("names the line of a variant whose gene is not on the panel, or whose number is not one", () => {
    const extra = `${VARIANTS}\nV10,ZZZ9,c.1A>G,p.(Met1?),start_lost,1,0,NA,no,none\n`;
    expect(() => classifyAll({ ...env, "variants.csv": extra }, artefact)).toThrow(
      /variants\.csv: line 11: gene "ZZZ9" is not in genes\.csv/,
    );
    const bad = `${VARIANTS.replace("V9,ARVN1,c.599G>A,p.(Ser200Asn),missense,200,0,", "V9,ARVN1,c.599G>A,p.(Ser200Asn),missense,200,n/a,")}\n`;
    expect(() => classifyAll({ ...env, "variants.csv": bad }, artefact)).toThrow(
      /variants\.csv: line 10: pop_af: "n\/a" is not a number/,
    );
  });
});

describe("clinical-variant data (synthetic, from the seeded generator)", () => {
  const paths = projectPaths(ROOT);
  const task = loadValidTask(paths, "clinical-variant");

  it("is a valid task without warnings whose committed files are what the generator produces", () => {
    const result = loadTask(paths, "clinical-variant");
    expect(result.ok && result.warnings).toEqual([]);
    const files = generate();
    expect(Object.keys(files).sort()).toEqual(task.environment.map((f) => f.path));
    for (const [name, content] of Object.entries(files)) {
      expect(readFileSync(path.join(task.dir, "environment", name), "utf8")).toBe(content);
    }
    // The gate: every class occurs, the default and perturbed answers differ, every convention bites.
    expect(() => checkGate(files)).not.toThrow();
  });

  it("gives three different answers under the artefact, the default and the perturbed conventions", () => {
    const files = generate();
    const answers = [artefact, defaults, variants.perturbed!].map((c) =>
      JSON.stringify(verifier.solve(files, c)),
    );
    expect(new Set(answers).size).toBe(3);
    expect(Object.keys(verifier.solve(files, artefact))).toEqual([OUTPUT]);
  });

  it("states the synthetic nature in the instruction, and compresses to under a third of the bytes", () => {
    expect(task.instruction.toString("utf8")).toMatch(/synthetic/);
    const compressed = task.variants.find((v) => v.name === "compressed")!;
    expect(compressed.bytes.length * 3).toBeLessThan(task.artefact.bytes.length);
    expect(compressed.bytes.toString("utf8").split("\n")[0]).toBe(
      `<!-- kgate-canary: ${task.artefact.canary} -->`,
    );
  });
});

describe("clinical-variant oracle (Python, on the host, reading the standard it is given)", () => {
  const task = loadValidTask(projectPaths(ROOT), "clinical-variant");

  it("passes under +A and under the compressed variant", async () => {
    for (const condition of ["+A", "variant:compressed"] as const) {
      const run = runOracleOnHost(task, condition);
      expect(run.stderr).toBe("");
      expect((await verifyTrial(task, run.outputs)).status, condition).toBe("pass");
    }
  });

  it("placed over the perturbed variant, computes exactly the perturbed conventions' answer", async () => {
    const verdict = await verifyTrial(task, runOracleOnHost(task, "variant:perturbed").outputs);
    expect(verdict.attribution).toBe("perturbed-convention:perturbed");
    expect(verdict.agreement?.["perturbed-convention:perturbed"]).toBe(1);
  });

  it("stops without the standard (-A)", () => {
    const run = runOracleOnHost(task, "-A");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/is not present/);
    expect(run.outputs[0]?.status).toBe("missing");
  });
});
