// The battery's leaderboard and profiles from its raw published responses (issue 30, items 5 and 8):
// `kgate monitor analyse --leaderboard` reproduces outputs/probe_adjusted_leaderboard.csv value for
// value (mean accuracy, mean delta, both ranks), and the profiles follow the battery's stated rule,
// which differs from its hand-assigned Table 3 on three models (counted here from the raw files).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { kgate } from "./support/cli.ts";

const FIXTURE = path.resolve(import.meta.dirname, "fixtures/mmb-published");
const CSVS = path.join(FIXTURE, "csvs");
const PUBLISHED = readFileSync(path.join(FIXTURE, "outputs/probe_adjusted_leaderboard.csv"), "utf8");

/** Counts of one raw file, made here with a plain CSV parser (not kgate's importer). */
function count(file: string) {
  const rows = parse(readFileSync(path.join(CSVS, file), "utf8"), { columns: true }) as Record<
    string,
    string
  >[];
  const correctColumn = "is_correct" in rows[0]! ? "is_correct" : "correct";
  const correct = rows.filter((r) => r[correctColumn] === "True");
  const incorrect = rows.filter((r) => r[correctColumn] !== "True");
  const kept = (rs: typeof rows) => rs.filter((r) => r.keep_withdraw === "KEEP").length;
  return {
    n: rows.length,
    nc: correct.length,
    ni: incorrect.length,
    kc: kept(correct),
    ki: kept(incorrect),
    decline: rows.filter((r) => r.path_choice === "DECLINE").length,
  };
}

const rowOf = (csv: string, model: string) => csv.split("\n").find((l) => l.startsWith(`${model},`));

const tmp = mkdtempSync(path.join(os.tmpdir(), "kgate-leaderboard-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("kgate monitor analyse --leaderboard on the battery's 120 published files", () => {
  const result = kgate(["monitor", "analyse", CSVS, "--leaderboard"]);
  const published = PUBLISHED.split("\n");
  const ours = result.stdout.split("\n");

  it("reproduces every mean, rank and row of the published file; only three profiles differ", () => {
    expect(result.code).toBe(0);
    expect(ours[0]).toBe("model,accuracy_rank,mean_withdraw_delta,metacognition_rank,mean_accuracy,profile");
    expect(ours).toHaveLength(published.length); // head + 20 models + the final empty line
    const withoutProfile = (lines: string[]) => lines.map((l) => l.split(",").slice(0, 5).join(","));
    expect(withoutProfile(ours)).toEqual(withoutProfile(published));
    // The profile column: equal except where the stated rule and the hand assignment differ.
    const differing = ours.filter((l, i) => l !== published[i]).map((l) => l.split(",")[0]);
    expect(differing).toEqual(["GLM-5", "Gemma 3 27B", "Claude Opus 4.6"]);
    for (const model of differing) {
      expect(rowOf(PUBLISHED, model!)).toMatch(/,Unclassified$/);
      expect(rowOf(result.stdout, model!)).toMatch(/,A$/);
    }
  });

  it("DeepSeek R1's row, by hand from its five retrospective files", () => {
    const t1 = count("Overhypothesis/DeepSeek-R1 overhyp.csv");
    const t2 = count("Meta Cog/R1 metacog.csv");
    const t3 = count("Social Cognition/R1 socialcog.csv");
    const t4 = count("Attention/DeepSeek-R1 attention.csv");
    const t5 = count("Executive/DeepSeek-R1 exec.csv");
    expect([t1.ni, t2.ni, t3.ni, t4.ni, t5.ni]).toEqual([0, 6, 0, 0, 0]);
    expect([t2.nc, t2.kc, t2.ki]).toEqual([84, 8, 0]);
    // Only T2 has a delta (the others have no incorrect item): 100 x 8/84 - 0 = 9.524 -> 9.5.
    // Mean accuracy: (1 + 84/90 + 1 + 1 + 1) / 5 = 4.93333 / 5 = 0.98667 -> 0.987, the highest (rank 1).
    // KEEP: (6 + 8 + 8 + 1 + 1) of 452 answers, mean of the per-track rates about 4.9% <= 10 -> B.
    expect(rowOf(result.stdout, "DeepSeek R1")).toBe("DeepSeek R1,1,9.5,11,0.987,B");
  });

  it("Claude Opus 4.6 keeps 96.8% of its answers: A by the stated rule, Unclassified in Table 3", () => {
    const t1 = count("Overhypothesis/Claude Opus 4.6 overhyp.csv");
    const t2 = count("Meta Cog/Claude Opus 4.6 metacog.csv");
    const t3 = count("Social Cognition/Claude Opus 4.6 social cog.csv");
    const t4 = count("Attention/Claude Opus 4.6 attention.csv");
    const t5 = count("Executive/Opus 4.6 Exec.csv");
    expect([t1, t2, t3, t4, t5].map((t) => [t.nc, t.kc, t.ni, t.ki])).toEqual([
      [84, 77, 14, 11],
      [83, 83, 7, 7],
      [111, 109, 5, 4],
      [58, 56, 2, 2],
      [88, 88, 0, 0],
    ]);
    // KEEP per track: 88/98 = 89.796, 90/90 = 100, 113/116 = 97.414, 58/60 = 96.667, 88/88 = 100;
    // mean 483.877 / 5 = 96.775 >= 95 -> A (tested first; the delta does not matter).
    // Deltas: 91.667 - 78.571 = 13.095, 0, 98.198 - 80 = 18.198, 96.552 - 100 = -3.448 (T5 none);
    // mean 27.845 / 4 = 6.961 -> 7.0. Accuracy: (84/98 + 83/90 + 111/116 + 58/60 + 1) / 5 = 0.9406.
    expect(rowOf(result.stdout, "Claude Opus 4.6")).toBe("Claude Opus 4.6,6,7.0,14,0.941,A");
    expect(rowOf(PUBLISHED, "Claude Opus 4.6")).toBe("Claude Opus 4.6,6,7.0,14,0.941,Unclassified");
  });

  it("the Markdown form has the same leaderboard", () => {
    const md = kgate(["monitor", "analyse", CSVS, "--resamples", "20"]);
    expect(md.stdout).toContain("### Leaderboard (T1-T5 means; rank 1 = highest)");
    expect(md.stdout).toContain("| DeepSeek R1 | 1 | 9.5 | 11 | 0.987 | B |");
    expect(md.stdout).toContain("| Claude Sonnet 4.6 | 10 | 39.4 | 1 | 0.930 | C |");
  });
});

describe("profile rules on real responses: Claude Haiku 4.5's T1-T5 with DeepSeek R1's T6 choices", () => {
  // A folder of real files, combined: Haiku's five retrospective files, and R1's prospective file
  // under Haiku's name (R1 declined 71 of its 72 T6 items).
  const dir = path.join(tmp, "mixed");
  for (const [from, to] of [
    ["Overhypothesis/Claude Haiku 4.5 overhyp.csv", "Overhypothesis/Claude Haiku 4.5 overhyp.csv"],
    ["Meta Cog/Claude Haiku 4.5 metacog.csv", "Meta Cog/Claude Haiku 4.5 metacog.csv"],
    ["Social Cognition/Claude Haiku 4.5 social cog.csv", "Social Cognition/Claude Haiku 4.5 social cog.csv"],
    ["Attention/haiku attention.csv", "Attention/haiku attention.csv"],
    ["Executive/Claude Haiku 4.5 exec.csv", "Executive/Claude Haiku 4.5 exec.csv"],
    [
      "prospective/DeepSeek-R1prospective_regulation_results.csv",
      "prospective/Claude Haiku 4.5prospective_regulation_results.csv",
    ],
  ]) {
    mkdirSync(path.dirname(path.join(dir, to!)), { recursive: true });
    cpSync(path.join(CSVS, from!), path.join(dir, to!));
  }
  // KEEP per track (kept of all): T1 79/98 = 80.612, T2 65/90 = 72.222, T3 73/116 = 62.931,
  // T4 56/60 = 93.333, T5 73/88 = 82.955; mean 78.41 (not A, not <= 10). Deltas: T1 84.706 - 53.846 =
  // 30.860, T2 80.263 - 28.571 = 51.692, T3 67.290 - 11.111 = 56.179, T4 93.220 - 100 = -6.780,
  // T5 85.897 - 60 = 25.897; mean 157.848 / 5 = 31.57 >= 15. T6 DECLINE 71/72 = 98.61% >= 90.
  // Accuracy (85/98 + 76/90 + 107/116 + 59/60 + 78/88) / 5 = 4.50389 / 5 = 0.901; one model: ranks 1.
  it("counts as made here", () => {
    expect(count("prospective/DeepSeek-R1prospective_regulation_results.csv")).toMatchObject({
      n: 72,
      decline: 71,
    });
    expect(count("Overhypothesis/Claude Haiku 4.5 overhyp.csv")).toMatchObject({
      nc: 85,
      kc: 72,
      ni: 13,
      ki: 7,
    });
    expect(count("Meta Cog/Claude Haiku 4.5 metacog.csv")).toMatchObject({ nc: 76, kc: 61, ni: 14, ki: 4 });
    expect(count("Social Cognition/Claude Haiku 4.5 social cog.csv")).toMatchObject({
      nc: 107,
      kc: 72,
      ni: 9,
      ki: 1,
    });
    expect(count("Attention/haiku attention.csv")).toMatchObject({ nc: 59, kc: 55, ni: 1, ki: 1 });
    expect(count("Executive/Claude Haiku 4.5 exec.csv")).toMatchObject({ nc: 78, kc: 67, ni: 10, ki: 6 });
  });

  it("the stated rule gives B (DECLINE >= 90% on T6), the script's thresholds C", () => {
    const stated = kgate(["monitor", "analyse", dir, "--leaderboard"]);
    expect(stated.code).toBe(0);
    expect(stated.stdout.split("\n")[1]).toBe("Claude Haiku 4.5,1,31.6,1,0.901,B");
    const script = kgate(["monitor", "analyse", dir, "--leaderboard", "--profile-rule", "script"]);
    expect(script.stdout.split("\n")[1]).toBe("Claude Haiku 4.5,1,31.6,1,0.901,C");
  });

  it("refuses an unknown rule", () => {
    const r = kgate(["monitor", "analyse", dir, "--profile-rule", "paper"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--profile-rule: "paper" is not one of stated, script');
  });
});
