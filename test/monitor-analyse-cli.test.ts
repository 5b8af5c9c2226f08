// `kgate monitor analyse` on the real published responses of the battery (mmb-sample): the CSV
// reproduces counts made in this test from the files, read without kgate's importer; unreadable
// rows are reported by file and line; Markdown, HTML and JSON forms.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalModel, toFixedHalfEven, trackOfFolder } from "../src/monitor/index.ts";
import { kgate } from "./support/cli.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";

const SAMPLE = path.resolve(import.meta.dirname, "fixtures/mmb-sample");

/** A minimal reader for the sample's files (every field quoted; some span lines): rows of objects. */
function readRows(file: string): Record<string, string>[] {
  const text = readFileSync(file, "utf8");
  const records: string[][] = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  const endField = () => {
    fields.push(field);
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') quoted = !quoted;
    else if (quoted) field += ch;
    else if (ch === ",") endField();
    else if (ch === "\n") {
      endField();
      records.push(fields);
      fields = [];
    } else if (ch !== "\r") field += ch;
  }
  if (field !== "" || fields.length > 0) records.push([...fields, field]);
  const [header, ...body] = records;
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

/** Counts of one file, made here: correct, incorrect, kept among each. */
function handCount(file: string, correctColumn: string) {
  const rows = readRows(path.join(SAMPLE, file));
  const correct = rows.filter((r) => r[correctColumn] === "True");
  const incorrect = rows.filter((r) => r[correctColumn] === "False");
  const kept = (rs: typeof rows) => rs.filter((r) => r.keep_withdraw === "KEEP").length;
  return {
    rows: rows.length,
    nc: correct.length,
    ni: incorrect.length,
    kc: kept(correct),
    ki: kept(incorrect),
  };
}

const csvRow = (stdout: string, model: string, track: string) =>
  stdout.split("\n").find((l) => l.startsWith(`${model},${track},`));

const tmp = mkdtempSync(path.join(os.tmpdir(), "kgate-monitor-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("kgate monitor analyse --csv on mmb-sample", () => {
  const result = kgate(["monitor", "analyse", SAMPLE, "--csv"]);

  it("prints exactly the battery's columns, one row per model and track, in canonical order", async () => {
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toBe("model,track,accuracy,kc_rate,ki_rate,withdraw_delta,n_correct,n_incorrect");
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 2).join(" "))).toEqual([
      "Claude Haiku 4.5 T2",
      "Claude Haiku 4.5 T6",
      "DeepSeek R1 T2",
      "DeepSeek R1 T6",
      "Gemini 2.5 Flash T2",
      "Gemini 2.5 Flash T6",
      "GPT-5.4 T2",
      "GPT-5.4 T6",
    ]);
    expect(result.stderr).toContain("read 648 responses from 8 files"); // 4 x 90 + 4 x 72
  });

  it("reproduces DeepSeek R1 on T2 (`R1 metacog.csv`) from counts made here", async () => {
    const c = handCount("Meta Cog/R1 metacog.csv", "correct");
    // By hand from the file: 84 correct (8 kept), 6 incorrect (0 kept).
    expect(c).toEqual({ rows: 90, nc: 84, ni: 6, kc: 8, ki: 0 });
    // accuracy 84/90 = 0.9333; kc 8/84 = 9.5238% -> 9.52; ki 0/6 = 0.00; delta 9.52 - 0 = 9.52
    expect(csvRow(result.stdout, "DeepSeek R1", "T2")).toBe("DeepSeek R1,T2,0.9333,9.52,0.00,9.52,84,6");
  });

  it("reproduces Claude Haiku 4.5 on T6 (quoted answers spanning lines; `is_correct`) from counts made here", async () => {
    const c = handCount("prospective/Claude Haiku 4.5prospective_regulation_results.csv", "is_correct");
    // By hand: 62 correct (58 kept), 10 incorrect (10 kept).
    expect(c).toEqual({ rows: 72, nc: 62, ni: 10, kc: 58, ki: 10 });
    // accuracy 62/72 = 0.86111 -> 0.8611; kc 58/62 = 93.548 -> 93.55; ki 10/10 = 100.00;
    // delta 93.548 - 100 = -6.452 -> -6.45
    expect(csvRow(result.stdout, "Claude Haiku 4.5", "T6")).toBe(
      "Claude Haiku 4.5,T6,0.8611,93.55,100.00,-6.45,62,10",
    );
  });

  it("reproduces Claude Haiku 4.5 on T2 from counts made here", async () => {
    const c = handCount("Meta Cog/Claude Haiku 4.5 metacog.csv", "correct");
    expect(c).toEqual({ rows: 90, nc: 76, ni: 14, kc: 61, ki: 4 });
    // accuracy 76/90 = 0.84444; kc 61/76 = 80.263; ki 4/14 = 28.571; delta 51.692
    expect(csvRow(result.stdout, "Claude Haiku 4.5", "T2")).toBe(
      "Claude Haiku 4.5,T2,0.8444,80.26,28.57,51.69,76,14",
    );
  });

  it("agrees with the battery's own published results for the sample's models", async () => {
    // Rows of the battery's outputs/all_tracks_probe_results.csv (commit 8fc0b4e) for these models.
    for (const row of [
      "DeepSeek R1,T6,0.0139,0.00,100.00,-100.00,1,71",
      "Gemini 2.5 Flash,T2,0.9556,100.00,100.00,0.00,86,4",
      "Gemini 2.5 Flash,T6,0.8611,96.77,100.00,-3.23,62,10",
      "GPT-5.4,T2,0.9111,90.24,62.50,27.74,82,8",
      "GPT-5.4,T6,0.8333,90.00,83.33,6.67,60,12",
    ])
      expect(result.stdout.split("\n")).toContain(row);
  });
});

describe("unreadable rows", () => {
  const dir = path.join(tmp, "broken");
  cpSync(SAMPLE, dir, { recursive: true });
  const file = path.join(dir, "Meta Cog", "R1 metacog.csv");
  const lines = readFileSync(file, "utf8").split("\n");
  // Line 3 (item 1, correct True, WITHDRAW): correct made unreadable; line 5 (item 3): a field dropped.
  lines[2] = lines[2]!.replace('"True"', '"Maybe"');
  lines[4] = lines[4]!.split(",").slice(0, 7).join(",");
  writeFileSync(file, lines.join("\n"));
  writeFileSync(
    path.join(dir, "Meta Cog", "Mystery Model metacog.csv"),
    "item,correct,keep_withdraw\n0,True,KEEP\n",
  );
  const result = kgate(["monitor", "analyse", dir, "--csv"]);

  it("names each by file and line, exits 1 and still counts every other row", async () => {
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'unreadable: Meta Cog/R1 metacog.csv:3: correct is "Maybe", not True or False',
    );
    expect(result.stderr).toContain("unreadable: Meta Cog/R1 metacog.csv:5: 7 fields where the header has 8");
    expect(result.stderr).toContain("Meta Cog/Mystery Model metacog.csv: no canonical model name");
    const row = csvRow(result.stdout, "DeepSeek R1", "T2")!.split(",");
    // 84 correct less the two broken rows (items 1 and 3 were both correct) = 82; incorrect still 6.
    expect(row.slice(6)).toEqual(["82", "6"]);
  });
});

describe("other forms", () => {
  it("Markdown by default, with profiles and the T6 choice mix", async () => {
    const r = await kgateInProcess(["monitor", "analyse", SAMPLE]);
    expect(r.code).toBe(0);
    // Profile on T2 alone (the sample's only retrospective track): Haiku keep (61+4)/90 = 72.2%,
    // delta 51.69 >= 15 -> C; R1 keep 8/90 = 8.9% <= 10 -> B; Gemini 2.5 Flash keep 90/90 = 100%,
    // delta 0 -> A.
    expect(r.stdout).toMatch(/\| Claude Haiku 4\.5 \| 51\.69 \| 72\.22 \| C \|/);
    expect(r.stdout).toMatch(/\| DeepSeek R1 \| 9\.52 \| 8\.89 \| B \|/);
    expect(r.stdout).toMatch(/\| Gemini 2\.5 Flash \| 0\.00 \| 100\.00 \| A \|/);
    // Haiku T6 payoff: 53 direct right x 1.0 + 8 direct wrong x 0 + 9 hint right x 0.5 + 1 hint wrong
    // x 0.1 + 1 decline x 0.25 = 57.85 over 72 = 0.803; choices 61/72 = 84.7%, 10/72 = 13.9%, 1/72 = 1.4%.
    expect(r.stdout).toMatch(
      /\| Claude Haiku 4\.5 \| [^\n]* \| 84\.7 \| 13\.9 \| 1\.4 \| 0\.803 \| 0\.803 \|/,
    );
  });

  it("JSON and an HTML page", async () => {
    const html = path.join(tmp, "table.html");
    const r = await kgateInProcess(["monitor", "analyse", SAMPLE, "--json", "--html", html]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.tracks).toHaveLength(8);
    expect(json.problems).toEqual([]);
    // The payoff recomputed from path_choice and is_correct under the default schedule equals the
    // mean of the published score column, model by model.
    for (const m of json.models) expect(m.meanPayoff).toBeCloseTo(m.meanPublishedScore, 12);
    expect(readFileSync(html, "utf8")).toContain("<td>GPT-5.4</td><td>T2</td><td>0.9111</td>");
  });

  it("exits 2 on a folder without track folders", async () => {
    const r = await kgateInProcess(["monitor", "analyse", tmp.replace(/$/, "/nope")]);
    expect(r.code).toBe(2);
    expect(kgate(["monitor", "analyse", "--help"]).stdout).toContain("--csv");
  });
});

describe("names and numbers", () => {
  it.each([
    ["R1 metacog.csv", "DeepSeek R1"],
    ["DeepSeek-R1prospective_regulation_results.csv", "DeepSeek R1"],
    ["Claude Haiku 4.5prospective_regulation_results.csv", "Claude Haiku 4.5"],
    ["GPT-5.4 prospective_regulation_results.csv", "GPT-5.4"],
    ["gpt-5.4 MINI metacog.csv", "GPT-5.4 mini"],
    ["Gemini 3 Flash Preview social cog.csv", "Gemini 3 Flash"],
    ["GLM 5 exec.csv", "GLM-5"],
    ["Qwen 3 Next 80B Thinking attention.csv", "Qwen 80B Think"],
    ["Unknown 9 metacog.csv", null],
  ])("%s is %s", (file, model) => expect(canonicalModel(file)).toBe(model));

  it("tracks come from the folder", async () => {
    expect(trackOfFolder("Meta Cog")).toBe("T2");
    expect(trackOfFolder("prospective")).toBe("T6");
    expect(trackOfFolder("Overhypothesis")).toBe("T1");
    expect(trackOfFolder("misc")).toBeNull();
  });

  it("rounds exact ties to even, as the published tables do", async () => {
    expect((3.125).toFixed(2)).toBe("3.13"); // JavaScript rounds the exact tie up
    expect(toFixedHalfEven(3.125, 2)).toBe("3.12"); // 100 x 2/64: Python's format gives 3.12
    expect(toFixedHalfEven(-3.125, 2)).toBe("-3.12");
    expect(toFixedHalfEven(0.375, 2)).toBe("0.38");
    expect(toFixedHalfEven(9.5238095, 2)).toBe("9.52");
  });
});
