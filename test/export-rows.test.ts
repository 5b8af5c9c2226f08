// `kgate export rows`: the library's rows in verl's Parquet read back by an independent reader
// (DuckDB) and checked field by field against verl's documented schema (docs/preparation/
// prepare_data.rst: data_source, prompt as chat messages, ability, reward_model {style, ground_truth},
// extra_info), the split by task, the manifest, the canary in every written file, the ignorance-aware
// prompt, and a calibration run's decisions (`--from <run> --only retained`).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import { exportCanary, exportRows, judgeGradedIds } from "../src/export/index.ts";
import { projectPaths } from "../src/project.ts";
import { listTaskIds, loadValidTask } from "../src/task/index.ts";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { memoProject } from "./support/judge-task.ts";
import { runOracleOnHost } from "./support/oracle-host.ts";
import { tempDir } from "./support/project.ts";
import { scriptedRun } from "./support/scripted-run.ts";

const REPO = projectPaths(path.resolve(import.meta.dirname, ".."));
/** The library's tasks a model grades (judge criteria): `kgate export rows` leaves them out unnamed. */
const JUDGED = await judgeGradedIds(REPO, listTaskIds(REPO));
const IDS = listTaskIds(REPO).filter((id) => !JUDGED.includes(id));

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(":memory:");
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
  }
}

interface Row {
  data_source: string;
  prompt: Array<{ role: string; content: string }>;
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: Record<string, string | null>;
}

describe("kgate export rows --format verl (read back by DuckDB)", () => {
  let dir = "";
  let result: Awaited<ReturnType<typeof kgateInProcess>>;
  const rows: Record<string, Row[]> = {};

  beforeAll(async () => {
    dir = tempDir("kgate-rows-", "file");
    result = await kgateInProcess([
      "--root",
      REPO.root,
      "export",
      "rows",
      "--out",
      dir,
      "--split",
      "eval=0.2",
      "--seed",
      "7",
    ]);
    for (const split of ["train", "eval"]) {
      rows[split] = (await query(
        `select * from read_parquet('${dir}/${split}.parquet')`,
      )) as unknown as Row[];
    }
  });

  it("writes one Parquet file per split, typed as verl's preprocessing (Hugging Face datasets) writes it", async () => {
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("publishing them defeats the gate");
    expect(JUDGED).toEqual(["supplier-memo"]);
    expect(result.stderr).toContain(
      "supplier-memo: left out: a model grades it (judge criteria), so its rows have no offline reward",
    );
    const types = await query(`describe select * from read_parquet('${dir}/train.parquet')`);
    const type = (name: string) => types.find((t) => t.column_name === name)?.column_type;
    expect(types.map((t) => t.column_name)).toEqual([
      "data_source",
      "prompt",
      "ability",
      "reward_model",
      "extra_info",
    ]);
    expect(type("data_source")).toBe("VARCHAR");
    expect(type("prompt")).toBe('STRUCT("role" VARCHAR, "content" VARCHAR)[]');
    expect(type("ability")).toBe("VARCHAR");
    expect(type("reward_model")).toBe("STRUCT(style VARCHAR, ground_truth VARCHAR)");
    expect(type("extra_info")).toMatch(/^STRUCT\(split VARCHAR, "index" BIGINT, task VARCHAR, /);
    expect(readdirSync(dir).sort()).toEqual(
      [
        "README.md",
        "eval.parquet",
        "kgate_compare.py",
        "kgate_node",
        "kgate_reward.py",
        "kgate_verify.mjs",
        "manifest.jsonl",
        "manifest.parquet",
        "train.parquet",
      ].sort(),
    );
  });

  it("has a row per task and condition, -A left out (it only adds reward 0), whole tasks per split", () => {
    // 9 tasks x (+A, variant:perturbed, variant:compressed) = 27 rows; eval takes round(0.2 x 9) = 2
    // tasks (6 rows), train the other 7 (21 rows).
    expect(rows.train).toHaveLength(21);
    expect(rows.eval).toHaveLength(6);
    const all = [...rows.train!, ...rows.eval!];
    expect(all.some((r) => r.extra_info.condition === "-A")).toBe(false);
    for (const id of IDS) {
      const sides = new Set(all.filter((r) => r.extra_info.task === id).map((r) => r.extra_info.split));
      expect([...sides], id).toHaveLength(1);
    }
    for (const split of ["train", "eval"]) {
      expect(rows[split]!.map((r) => Number(r.extra_info.index))).toEqual(rows[split]!.map((_, i) => i));
      expect(rows[split]!.every((r) => r.extra_info.split === split)).toBe(true);
    }
  });

  it("gives every row verl's fields: data_source, chat prompt, ability, a rule reward with its ground truth", () => {
    for (const row of [...rows.train!, ...rows.eval!]) {
      const task = loadValidTask(REPO, row.extra_info.task!);
      expect(row.data_source).toBe(`kgate/${task.id}`);
      expect(row.ability).toBe(`knowledge-gated/${task.spec.gate}`);
      expect(row.prompt.map((m) => m.role)).toEqual(["system", "user"]);
      // The inline form: the instruction byte for byte, then the files, then the answer format.
      expect(row.prompt[1]!.content.startsWith(task.instruction.toString("utf8"))).toBe(true);
      expect(row.reward_model.style).toBe("rule");
      const truth = JSON.parse(row.reward_model.ground_truth);
      expect(truth).toMatchObject({
        task: task.id,
        condition: row.extra_info.condition,
        reward: { scheme: "binary" },
      });
      expect(row.extra_info.reference).toBe(
        row.extra_info.condition === "variant:perturbed" ? "variant:perturbed" : "artefact",
      );
      expect(row.extra_info.scorer).toBe(task.id === "legal-clause" ? "node" : "python");
    }
  });

  it("puts the condition's artefact or variant in its own fenced block, and computes the answer now", () => {
    const all = [...rows.train!, ...rows.eval!];
    const bom = (condition: string) =>
      all.find((r) => r.extra_info.task === "bom-costing" && r.extra_info.condition === condition)!;
    const task = loadValidTask(REPO, "bom-costing");
    const artefactPath = task.spec.artefact.path;
    const artefact = task.artefact.bytes.toString("utf8");
    const perturbed = task.variants.find((v) => v.name === "perturbed")!.bytes.toString("utf8");
    expect(bom("+A").prompt[1]!.content).toContain(`\`\`\`${artefactPath}\n${artefact}`);
    expect(bom("variant:perturbed").prompt[1]!.content).toContain(`\`\`\`${artefactPath}\n${perturbed}`);
    expect(bom("variant:perturbed").prompt[1]!.content).not.toContain(artefact);
    // The reference answer of the +A row is what the task's own oracle (its Python solution, not
    // kgate's TypeScript solver) computes from the data, value for value at 1e-4.
    const truth = JSON.parse(bom("+A").reward_model.ground_truth);
    const oracle = runOracleOnHost(task, "+A")
      .outputs[0]!.bytes!.toString("utf8")
      .trim()
      .split("\n")
      .slice(1);
    const answers = truth.answers["output/assembly_costs.csv"] as Array<{
      assembly: string;
      unit_cost: number;
    }>;
    expect(answers).toHaveLength(oracle.length);
    for (const line of oracle) {
      const [assembly, cost] = line.split(",");
      const answer = answers.find((a) => a.assembly === assembly)!;
      expect(Math.abs(answer.unit_cost - Number(cost))).toBeLessThanOrEqual(1e-4);
    }
  });

  it("gives verl's custom reward function: compute_score loaded from its path, called with keywords", () => {
    const bom = rows
      .train!.concat(rows.eval!)
      .find((r) => r.extra_info.task === "bom-costing" && r.extra_info.condition === "+A")!;
    const task = loadValidTask(REPO, "bom-costing");
    const answer = runOracleOnHost(task, "+A").outputs[0]!.bytes!.toString("utf8");
    // As verl's reward loader does: importlib from the file's path, then compute_score(**kwargs).
    const script = [
      "import importlib.util, json, sys",
      "spec = importlib.util.spec_from_file_location('custom_module', sys.argv[1])",
      "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)",
      "item = json.loads(sys.stdin.read())",
      "for reply in (item['right'], 'no answer'):",
      "    print(json.dumps(module.compute_score(data_source='kgate/bom-costing', solution_str=reply, ground_truth=item['truth'], extra_info={'split': 'train', 'index': 0})))",
    ].join("\n");
    const run = spawnSync("python3", ["-c", script, path.join(dir, "kgate_reward.py")], {
      input: JSON.stringify({
        right: `\`\`\`output/assembly_costs.csv\n${answer}\`\`\`\n`,
        truth: bom.reward_model.ground_truth,
      }),
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    const [right, wrong] = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(right).toEqual({ score: 1, passed: 1, partial: 1, requested_spec: 0, declined: 0 });
    expect(wrong).toEqual({ score: 0, passed: 0, partial: 0, requested_spec: 0, declined: 0 });
  });

  it("carries the export canary in every file it writes, in no prompt", async () => {
    const canaries = IDS.map((id) => exportCanary(loadValidTask(REPO, id)));
    const metadata = await query(`select key, value from parquet_kv_metadata('${dir}/train.parquet')`);
    const kv = metadata.find((m) => m.key === "kgate.canaries")!.value as string;
    for (const canary of canaries) expect(kv).toContain(canary);
    for (const file of [
      "README.md",
      "kgate_reward.py",
      "kgate_compare.py",
      "kgate_verify.mjs",
      "manifest.jsonl",
    ]) {
      const text = readFileSync(path.join(dir, file), "utf8");
      for (const canary of canaries) expect(text, file).toContain(canary);
    }
    const legal = exportCanary(loadValidTask(REPO, "legal-clause"));
    for (const file of ["bundle.json", "verifier.mjs"]) {
      expect(readFileSync(path.join(dir, "kgate_node", "legal-clause", file), "utf8")).toContain(legal);
    }
    for (const row of [...rows.train!, ...rows.eval!]) {
      expect(row.extra_info.canary).toBe(exportCanary(loadValidTask(REPO, row.extra_info.task!)));
      for (const canary of canaries) expect(row.prompt.map((m) => m.content).join("")).not.toContain(canary);
    }
  });

  it("lists every row in manifest.jsonl and manifest.parquet with its digests, split and canary", async () => {
    const lines = readFileSync(path.join(dir, "manifest.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(27);
    const bom = lines.find((l) => l.task === "bom-costing" && l.condition === "+A");
    const task = loadValidTask(REPO, "bom-costing");
    expect(bom).toMatchObject({
      variant: null,
      form: "row",
      digests: {
        task: task.digests.task,
        instruction: task.digests.instruction,
        artefact: task.artefact.sha256,
      },
      calibration: null,
      reward: "binary",
      scorer: "python",
      canary: exportCanary(task),
    });
    expect(rows[bom.split]![bom.row]!.extra_info).toMatchObject({ task: "bom-costing", condition: "+A" });
    const parquet = await query(
      `select task, condition, split, "row", task_sha256, canary from read_parquet('${dir}/manifest.parquet')`,
    );
    expect(parquet).toHaveLength(27);
    expect(parquet.find((p) => p.task === "bom-costing" && p.condition === "+A")).toMatchObject({
      split: bom.split,
      row: String(bom.row),
      task_sha256: task.digests.task,
      canary: exportCanary(task),
    });
  });
});

describe("kgate export rows --reward ignorance-aware --format jsonl", () => {
  it("adds the -A rows and states the three choices with the schedule's payoffs, the instruction kept whole", async () => {
    const dir = tempDir("kgate-rows-ia-");
    const payoff = path.join(dir, "payoff.json");
    writeFileSync(payoff, JSON.stringify({ decline: 0.3 }));
    const out = path.join(dir, "rows");
    const result = await kgateInProcess([
      "--root",
      REPO.root,
      "export",
      "rows",
      "bom-costing",
      "--out",
      out,
      "--format",
      "jsonl",
      "--reward",
      "ignorance-aware",
      "--payoff",
      payoff,
    ]);
    expect(result.code).toBe(0);
    const rows = readFileSync(path.join(out, "train.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Row);
    expect(rows.map((r) => r.extra_info.condition)).toEqual([
      "+A",
      "-A",
      "variant:perturbed",
      "variant:compressed",
    ]);
    const plus = rows[0]!.prompt[1]!.content;
    const minus = rows[1]!.prompt[1]!.content;
    expect(minus).toContain("- DECLINE: do not attempt it. Scored 0.3.\n");
    expect(minus).toContain("- ANSWER_DIRECTLY: work on it as it stands. Scored 1 if correct, 0 if wrong.\n");
    const task = loadValidTask(REPO, "bom-costing");
    expect(minus).toContain(task.instruction.toString("utf8"));
    // +A and -A differ by exactly the artefact's fenced block (and the blank line after it).
    const block = `\`\`\`${task.spec.artefact.path}\n${task.artefact.bytes.toString("utf8")}\`\`\`\n\n`;
    expect(plus.replace(block, "")).toBe(minus);
    expect(minus).not.toContain(task.artefact.canary!);
    expect(JSON.parse(rows[1]!.reward_model.ground_truth).reward).toEqual({
      scheme: "ignorance-aware",
      schedule: { direct: { correct: 1, wrong: 0 }, withSpec: { correct: 0.5, wrong: 0.1 }, decline: 0.3 },
      specGiven: false,
    });
  });

  it("refuses bad options with a usage error naming the option", async () => {
    const out = tempDir("kgate-rows-bad-");
    const split = await kgateInProcess([
      "--root",
      REPO.root,
      "export",
      "rows",
      "--out",
      out,
      "--split",
      "eval=2",
    ]);
    expect(split.code).toBe(2);
    expect(split.stderr).toContain('--split eval=2: "eval=2" should be <name>=<fraction>');
    const only = await kgateInProcess([
      "--root",
      REPO.root,
      "export",
      "rows",
      "--out",
      out,
      "--only",
      "retained",
    ]);
    expect(only.code).toBe(2);
    expect(only.stderr).toContain("--only retained needs --from <calibration run>");
  });
});

describe("kgate export rows of a task graded by a judge", () => {
  it("refuses the task by name (a model grades it: no offline reward), and says where it can go", async () => {
    const memo = memoProject({ provider: "openai", baseUrl: "http://127.0.0.1:9" });
    const ids = listTaskIds(memo.paths);
    const out = tempDir("kgate-rows-judge-");
    const result = await exportRows(memo.paths, ids, {
      format: "jsonl",
      out,
      reward: { scheme: "binary" },
      split: [],
      seed: 0,
      kgateVersion: "test",
    });
    expect(result.tasks).toEqual([
      {
        task: ids[0],
        ok: false,
        rows: 0,
        error: `task "${ids[0]}" has judge criteria: a model grades them, so its rows have no offline reward; export it with kgate export harbor --for-training`,
      },
    ]);
  });
});

describe("kgate export rows --from <calibration run> --only retained", () => {
  it("exports the retained tasks only, with the run's decision and each cell's passes, runs and Wilson bounds", async () => {
    const dir = tempDir("kgate-rows-run-");
    // bom-costing is retained (frontier+A 5/5, frontier-A 0/5, mid+A 1/5, control 0/5);
    // payroll-overtime is not (frontier-A 1/5 breaks "= 0").
    const run = {
      dir: await scriptedRun(REPO, dir, ["bom-costing", "payroll-overtime"], ["payroll-overtime"]),
    };
    const out = path.join(dir, "rows");
    const result = await kgateInProcess([
      "--root",
      REPO.root,
      "export",
      "rows",
      "--out",
      out,
      "--from",
      run.dir,
      "--only",
      "retained",
      "--format",
      "jsonl",
    ]);
    expect(result.code).toBe(0);
    const manifest = readFileSync(path.join(out, "manifest.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect([...new Set(manifest.map((l) => l.task))]).toEqual(["bom-costing"]);
    const cells = manifest[0].calibration.cells as Array<{
      cell: string;
      passes: number;
      runs: number;
      lo: number;
      hi: number;
    }>;
    expect(manifest[0].calibration).toMatchObject({ run: "cal-test", decision: "retain" });
    const frontier = cells.find((c) => c.cell === "frontier+A")!;
    // Wilson, 5/5 at z = 1.96: (1 + z²/10 - z·sqrt(z²/100)) / (1 + z²/5) = (1.38415 - 0.38415) / 1.76829 = 0.5655.
    expect(frontier).toMatchObject({ passes: 5, runs: 5, hi: 1 });
    expect(frontier.lo).toBeCloseTo(0.5655, 4);
    expect(cells.find((c) => c.cell === "mid+A")).toMatchObject({ passes: 1, runs: 5 });

    // A task changed since the run (here: the plan's digest of it) is refused by name; the others go on.
    const planFile = path.join(run.dir, "plan.json");
    const json = JSON.parse(readFileSync(planFile, "utf8"));
    json.tasks[0].digests.task = "0".repeat(64);
    writeFileSync(planFile, JSON.stringify(json));
    const changed = await kgateInProcess([
      "--root",
      REPO.root,
      "export",
      "rows",
      "--out",
      path.join(dir, "again"),
      "--from",
      run.dir,
      "--format",
      "jsonl",
    ]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('task "bom-costing" changed since run cal-test calibrated it');
    expect(readFileSync(path.join(dir, "again", "manifest.jsonl"), "utf8")).toContain(
      '"task":"payroll-overtime"',
    );
  });
});
