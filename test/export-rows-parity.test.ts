// Parity of the generated Python reward module (kgate_reward.py, run by python3) with kgate's own
// verification: every library task's rows (+A, -A, each variant) scored on the oracle's answer, the
// default-convention answer, each variant's answer and a corpus of wrong and malformed replies
// (test/support/reply-corpus.ts), plus one-word choices under the ignorance-aware reward. The
// verdicts must be identical: pass/fail, partial score, and the reward of the scheme. One python3
// process scores every reply (the rubric task's through one node process, kgate_verify.mjs).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { exportRows } from "../src/export/rows/export-rows.ts";
import { GroundTruth } from "../src/export/rows/ground-truth.ts";
import { rowChoice, rowReward } from "../src/export/rows/reward.ts";
import { judgeGradedIds } from "../src/export/rows/scorer.ts";
import { projectPaths } from "../src/project.ts";
import {
  type Condition,
  type LoadedTask,
  listTaskIds,
  loadValidTask,
  parseInlineReply,
  variantOf,
} from "../src/task/index.ts";
import {
  type ConventionSet,
  loadVerifier,
  renderOutput,
  solveRaw,
  verifyTrial,
} from "../src/verify/index.ts";
import { runOracleOnHost } from "./support/oracle-host.ts";
import { tempDir } from "./support/project.ts";
import { type Case, CHOICE_REPLIES, corpus, replyWith } from "./support/reply-corpus.ts";

const REPO = projectPaths(path.resolve(import.meta.dirname, ".."));

interface Scored {
  row: string;
  kind: "answer" | "oracle" | "convention" | "corpus" | "choice";
  name: string;
  reply: string;
  truth: string;
}

interface Verdict {
  passed: boolean;
  partial: number;
  score: number;
}

const oracles = new Map<string, Array<{ path: string; text: string }>>();

/** The task's oracle solution's answer under +A (run once per task). */
function oracleAnswer(task: LoadedTask): Array<{ path: string; text: string }> {
  if (!oracles.has(task.id)) {
    const run = runOracleOnHost(task, "+A");
    oracles.set(
      task.id,
      task.spec.outputs.map((o, i) => ({
        path: o.path,
        text: run.outputs[i]!.bytes?.toString("utf8") ?? "",
      })),
    );
  }
  return oracles.get(task.id)!;
}

/**
 * The replies of one row: the oracle's (+A; the variants' answers are the convention sets'), each
 * convention set's answer and the choices; the corpus of mutations on the +A row.
 */
async function repliesOf(
  task: LoadedTask,
  condition: Condition,
  truth: string,
  label: string,
): Promise<Scored[]> {
  const loaded = await loadVerifier(task);
  const oracle = oracleAnswer(task);
  const item = (kind: Scored["kind"], c: Case): Scored => ({ row: label, kind, ...c, truth });
  const sets = [
    "artefact",
    "default",
    ...Object.keys(task.spec.artefact.variants).map((v) => `variant:${v}`),
  ];
  const conventions = sets.map((set) => {
    const answers = solveRaw(task, loaded, set as ConventionSet);
    const files = task.spec.outputs.map((o) => ({
      path: o.path,
      text: renderOutput(o, answers[o.path], loaded),
    }));
    return item("convention", { name: set, reply: replyWith(files) });
  });
  const choices = CHOICE_REPLIES.map((reply, i) => item("choice", { name: `choice ${i}`, reply }));
  const cases = condition === "+A" ? corpus(task.spec.outputs, oracle).map((c) => item("corpus", c)) : [];
  const oracleReply = item("oracle", { name: "oracle", reply: replyWith(oracle) });
  return [...(variantOf(condition) ? [] : [oracleReply]), ...conventions, ...choices, ...cases];
}

const tasks = new Map<string, LoadedTask>();
const taskOf = (id: string) => tasks.get(id) ?? tasks.set(id, loadValidTask(REPO, id)).get(id)!;

/** kgate's verdict and the scheme's reward, computed by kgate itself. */
async function kgateVerdict(s: Scored): Promise<Verdict> {
  const truth = GroundTruth.parse(JSON.parse(s.truth));
  const task = taskOf(truth.task);
  const choice = rowChoice(truth.reward, s.reply);
  if (choice !== "ANSWER")
    return { passed: false, partial: 0, score: rowReward(truth.reward, choice, false) };
  const verdict = await verifyTrial(task, parseInlineReply(task, s.reply), truth.reference as ConventionSet);
  const passed = verdict.status === "pass";
  return { passed, partial: verdict.score, score: rowReward(truth.reward, choice, passed) };
}

function pythonVerdicts(dir: string, items: readonly Scored[]): Verdict[] {
  const input = items.map((s) => `${JSON.stringify({ reply: s.reply, ground_truth: s.truth })}\n`).join("");
  const run = spawnSync("python3", [path.join(dir, "kgate_reward.py")], {
    input,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Verdict);
}

describe("kgate_reward.py (python3) against kgate's own verification", () => {
  const items: Scored[] = [];
  let dir = "";
  let python: Verdict[] = [];
  let kgate: Verdict[] = [];

  beforeAll(async () => {
    dir = tempDir("kgate-rows-parity-", "file");
    // the tasks a model grades have no offline reward (rows refuse them)
    const all = listTaskIds(REPO);
    const judged = await judgeGradedIds(REPO, all);
    const ids = all.filter((id) => !judged.includes(id));
    const exported = await exportRows(REPO, ids, {
      format: "jsonl",
      out: dir,
      reward: {
        scheme: "ignorance-aware",
        schedule: { direct: { correct: 1, wrong: 0 }, withSpec: { correct: 0.5, wrong: 0.1 }, decline: 0.25 },
      },
      split: [],
      seed: 0,
      kgateVersion: "test",
    });
    expect(exported.tasks.filter((t) => !t.ok)).toEqual([]);
    const rows = readFileSync(path.join(dir, "train.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    for (const row of rows) {
      const truth = row.reward_model.ground_truth as string;
      const { task: id, condition } = JSON.parse(truth) as { task: string; condition: Condition };
      items.push(...(await repliesOf(taskOf(id), condition, truth, `${id} ${condition}`)));
    }
    python = pythonVerdicts(dir, items);
    kgate = [];
    for (const item of items) kgate.push(await kgateVerdict(item));
  });

  it("is Python 3.9 syntax and imports only the standard library", () => {
    const check = [
      "import ast, sys",
      "for f in sys.argv[1:]:",
      "    tree = ast.parse(open(f).read(), feature_version=(3, 9))",
      "    for node in ast.walk(tree):",
      "        if isinstance(node, (ast.Import, ast.ImportFrom)):",
      "            for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]):",
      "                print(name.split('.')[0])",
    ].join("\n");
    const files = ["kgate_reward.py", "kgate_compare.py"].map((f) => path.join(dir, f));
    const run = spawnSync("python3", ["-c", check, ...files], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    const imported = [...new Set(run.stdout.trim().split("\n"))].sort();
    // Each name checked by hand against the standard library's module index.
    expect(imported).toEqual(["importlib", "json", "math", "os", "re", "subprocess", "sys", "unicodedata"]);
  });

  it("agrees on every reply: pass/fail, partial score and reward", () => {
    const differences = items.flatMap((s, i) => {
      const [p, k] = [python[i]!, kgate[i]!];
      const same = p.passed === k.passed && Math.abs(p.partial - k.partial) < 1e-12 && p.score === k.score;
      return same ? [] : [`${s.row} / ${s.name}: python ${JSON.stringify(p)}, kgate ${JSON.stringify(k)}`];
    });
    expect(differences).toEqual([]);
    expect(python).toHaveLength(items.length);
  });

  it("covers the library: the oracle passes every row, the default-convention answer fails every row", () => {
    // 9 library tasks; each row is (task, condition): +A, -A and two variants = 4 rows per task.
    const rows = new Set(items.map((s) => s.row));
    expect(rows.size).toBe(9 * 4);
    const oracle = items.flatMap((s, i) => (s.kind === "oracle" ? [kgate[i]!] : []));
    expect(oracle).toHaveLength(9 * 2); // the +A and -A rows of each task
    expect(oracle.every((v) => v.passed)).toBe(true);
    const defaults = items.flatMap((s, i) => (s.name === "default" ? [python[i]!] : []));
    expect(defaults).toHaveLength(36);
    expect(defaults.every((v) => !v.passed)).toBe(true);
  });

  it("has at least 500 wrong or malformed answers, and right ones among the mutations", () => {
    const corpusVerdicts = items.flatMap((s, i) => (s.kind === "corpus" ? [kgate[i]!] : []));
    expect(corpusVerdicts.filter((v) => !v.passed).length).toBeGreaterThanOrEqual(500);
    expect(corpusVerdicts.filter((v) => v.passed).length).toBeGreaterThanOrEqual(100);
  });

  it("scores the rows' answers as their conventions say: a perturbed row rewards the perturbed answer", () => {
    const at = (row: string, name: string) =>
      python[items.findIndex((s) => s.row === row && s.name === name)]!;
    expect(at("bom-costing +A", "artefact").score).toBe(1);
    expect(at("bom-costing +A", "variant:perturbed").score).toBe(0);
    expect(at("bom-costing variant:perturbed", "variant:perturbed").score).toBe(1);
    expect(at("bom-costing variant:perturbed", "artefact").score).toBe(0);
    // compressed: the artefact's conventions in fewer bytes, so the artefact's answer is right.
    expect(at("bom-costing variant:compressed", "artefact").score).toBe(1);
  });

  it("pays the schedule's payoffs for choices (1/0 direct, 0.5/0.1 with the specification, 0.25 decline)", () => {
    const at = (row: string, reply: string) =>
      python[items.findIndex((s) => s.row === row && s.kind === "choice" && s.reply === reply)]!;
    // -A: the specification is missing, so a request earns withSpec.correct = 0.5.
    expect(at("bom-costing -A", "REQUEST_SPEC").score).toBe(0.5);
    expect(at("bom-costing -A", "**DECLINE**").score).toBe(0.25);
    // +A: the specification is in the prompt, so a request is an answer withheld: withSpec.wrong = 0.1.
    expect(at("bom-costing +A", "request spec").score).toBe(0.1);
    // Not a choice but an answer without a block: direct.wrong = 0.
    expect(at("bom-costing -A", "I will DECLINE").score).toBe(0);
    expect(at("bom-costing -A", "ANSWER_DIRECTLY").score).toBe(0);
    // -A oracle answer: correct only by a leak; paid direct.correct = 1 like any correct answer.
    expect(python[items.findIndex((s) => s.row === "bom-costing -A" && s.kind === "oracle")]!.score).toBe(1);
  });
});
