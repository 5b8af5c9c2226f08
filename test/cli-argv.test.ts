// argv to options, apart from behaviour: every verb's command line as the parser hands it to the
// verb's module (positional arguments, then one options object with defaults), table by table.
import { describe, expect, it } from "vitest";
import { buildProgram, type Invoke, VERBS } from "../src/cli.ts";

interface Parsed {
  verb: string;
  args: unknown[];
  root: string;
}

async function parse(argv: string[]): Promise<Parsed> {
  let seen: Parsed | undefined;
  const invoke: Invoke = async (verb, args, ctx) => {
    seen = { verb, args, root: ctx.paths.root };
    return 0;
  };
  await buildProgram(() => {}, invoke).parseAsync(["node", "kgate", ...argv]);
  if (!seen) throw new Error(`nothing was invoked for ${argv.join(" ")}`);
  return seen;
}

const TABLE: Array<[string[], string, unknown[]]> = [
  [["list"], "list", [{}]],
  [["list", "--json"], "list", [{ json: true }]],
  [["new", "demo"], "new", ["demo", { gate: "convention", output: "csv" }]],
  [
    ["new", "demo", "--gate", "operator", "--output", "json", "--title", "T", "--domain", "D", "--json"],
    "new",
    ["demo", { gate: "operator", output: "json", title: "T", domain: "D", json: true }],
  ],
  [
    ["run", "bom-costing", "--agent", "oracle"],
    "run",
    ["bom-costing", { agent: "oracle", condition: "+A", n: "1", concurrency: 1, retries: 1, ping: true }],
  ],
  [
    ["run", "t", "--agent", "mid", "--condition", "-A", "-n", "5", "--concurrency", "3", "--retries", "0"],
    "run",
    ["t", { agent: "mid", condition: "-A", n: "5", concurrency: 3, retries: 0, ping: true }],
  ],
  [
    ["run", "t", "--agent", "a", "--run-id", "r1", "--json"],
    "run",
    [
      "t",
      {
        agent: "a",
        condition: "+A",
        n: "1",
        concurrency: 1,
        retries: 1,
        runId: "r1",
        json: true,
        ping: true,
      },
    ],
  ],
  [
    ["run", "t", "--agent", "a", "--condition", "-A", "--monitor", "--prospective", "--payoff", "p.json"],
    "run",
    [
      "t",
      {
        agent: "a",
        condition: "-A",
        n: "1",
        concurrency: 1,
        retries: 1,
        monitor: true,
        prospective: true,
        payoff: "p.json",
        ping: true,
      },
    ],
  ],
  [
    ["monitor", "analyse", "d"],
    "monitor.analyse",
    ["d", { seed: "42", resamples: "2000", profileRule: "stated" }],
  ],
  [
    ["monitor", "analyse", "d", "--csv", "--html", "t.html", "--seed", "1", "--resamples", "10", "--json"],
    "monitor.analyse",
    ["d", { csv: true, html: "t.html", seed: "1", resamples: "10", json: true, profileRule: "stated" }],
  ],
  [
    ["triage", "items", "--agent", "a", "--alpha", "0.5", "--alpha", "1", "--inject", "0.25", "--live"],
    "triage",
    ["items", { agent: "a", alpha: ["0.5", "1"], inject: ["0.25"], live: true, concurrency: 2, ping: true }],
  ],
  [
    ["triage", "items", "--agent", "a", "--framing", "neutral", "--resolve"],
    "triage",
    ["items", { agent: "a", framing: ["neutral"], resolve: true, concurrency: 2, ping: true }],
  ],
  [
    ["triage", "score", "--phase0", "p.jsonl", "--plan", "plan.json", "--budget", "2000", "--json"],
    "triage.score",
    [{ phase0: "p.jsonl", plan: "plan.json", budget: "2000", json: true, concurrency: 2, ping: true }],
  ],
  [
    ["run", "t", "--agent", "a", "--no-ping"],
    "run",
    ["t", { agent: "a", condition: "+A", n: "1", concurrency: 1, retries: 1, ping: false }],
  ],
  [["calibrate", "--no-ping"], "calibrate", [[], { controls: true, curtail: true, ping: false }]],
  [
    ["probe", "canary", "t", "--agent", "a", "--no-ping"],
    "probe.canary",
    ["t", { agent: ["a"], n: "5", concurrency: 2, ping: false }],
  ],
  [
    ["triage", "items", "--agent", "a", "--no-ping"],
    "triage",
    ["items", { agent: "a", concurrency: 2, ping: false }],
  ],
  [
    ["exam", "arith", "--agent", "a", "--no-ping"],
    "exam",
    [
      "arith",
      {
        agent: "a",
        condition: "+A",
        n: "5,10,20",
        exams: "5",
        scheme: "fixed",
        order: "random",
        prompt: "baseline",
        seed: "2",
        trials: "3",
        concurrency: 2,
        ping: false,
      },
    ],
  ],
  [["agents"], "agents", [{}]],
  [["agents", "--build", "--json"], "agents", [{ build: true, json: true }]],
  [["show", "r1/t.0"], "show", ["r1/t.0", {}]],
  [["show", "r1", "--full", "--json"], "show", ["r1", { full: true, json: true }]],
  [["sandbox", "build"], "sandbox.build", [{}]],
  [["sandbox", "doctor", "--json"], "sandbox.doctor", [{ json: true }]],
  [["sandbox", "reap"], "sandbox.reap", [{}]],
  [["check"], "check", [[], { sandbox: true, concurrency: 2, ping: true }]],
  [
    ["check", "a", "b", "--no-sandbox", "--json"],
    "check",
    [["a", "b"], { sandbox: false, json: true, concurrency: 2, ping: true }],
  ],
  [["check", "--concurrency", "3"], "check", [[], { sandbox: true, concurrency: 3, ping: true }]],
  [["check", "--no-ping"], "check", [[], { sandbox: true, concurrency: 2, ping: false }]],
  [["audit"], "audit", [[], { format: "text" }]],
  [
    ["audit", "a", "--format", "sarif", "--staged", "--show"],
    "audit",
    [["a"], { format: "sarif", staged: true, show: true }],
  ],
  [["hook", "install"], "hook", ["install", {}]],
  [["hook", "uninstall"], "hook", ["uninstall", {}]],
  [["calibrate"], "calibrate", [[], { controls: true, curtail: true, ping: true }]],
  [
    [
      "calibrate",
      "bom-costing",
      "-n",
      "3",
      "--cell",
      "x=oracle:+A>=0.6",
      "--cell",
      "y=noop:-A=0",
      "--threshold",
      "frontier+A>=0.8",
      "--frontier",
      "f",
      "--mid",
      "m",
      "--no-controls",
      "--concurrency",
      "4",
      "--provider-concurrency",
      "anthropic=2",
      "--sequential",
      "--cap",
      "30",
      "--confidence",
      "0.9",
      "--strict",
      "--run-id",
      "r2",
      "--json",
    ],
    "calibrate",
    [
      ["bom-costing"],
      {
        n: "3",
        cell: ["x=oracle:+A>=0.6", "y=noop:-A=0"],
        threshold: ["frontier+A>=0.8"],
        frontier: "f",
        mid: "m",
        controls: false,
        curtail: true,
        ping: true,
        concurrency: 4,
        providerConcurrency: ["anthropic=2"],
        sequential: true,
        cap: "30",
        confidence: "0.9",
        strict: true,
        runId: "r2",
        json: true,
      },
    ],
  ],
  [
    ["calibrate", "--resume", "r2"],
    "calibrate",
    [[], { controls: true, curtail: true, ping: true, resume: "r2" }],
  ],
  [["calibrate", "--cross"], "calibrate", [[], { controls: true, curtail: true, ping: true, cross: true }]],
  [
    ["calibrate", "--monitor"],
    "calibrate",
    [[], { controls: true, curtail: true, ping: true, monitor: true }],
  ],
  [
    ["calibrate", "--prospective"],
    "calibrate",
    [[], { controls: true, curtail: true, ping: true, prospective: true }],
  ],
  [
    ["calibrate", "--prospective", "--payoff", "p.json"],
    "calibrate",
    [[], { controls: true, curtail: true, ping: true, prospective: true, payoff: "p.json" }],
  ],
  [
    ["calibrate", "--cross", "fxm,mxf"],
    "calibrate",
    [[], { controls: true, curtail: true, ping: true, cross: "fxm,mxf" }],
  ],
  [["report", "r2"], "report", ["r2", { format: "md" }]],
  [["view", "r1", "r2"], "view", [["r1", "r2"], {}]],
  [
    ["view", "r1", "--out", "site", "--port", "8080", "--json"],
    "view",
    [["r1"], { out: "site", port: "8080", json: true }],
  ],
  [
    ["probe", "recite", "t", "--agent", "a", "--agent", "b", "--against", "r1"],
    "probe.recite",
    ["t", { agent: ["a", "b"], n: "5", against: ["r1"], concurrency: 2, ping: true }],
  ],
  [
    [
      "probe",
      "compress",
      "t",
      "--agent",
      "a",
      "-n",
      "2",
      "--max-env-bytes",
      "1000",
      "--run-id",
      "p",
      "--json",
    ],
    "probe.compress",
    ["t", { agent: ["a"], n: "2", maxEnvBytes: "1000", runId: "p", json: true, concurrency: 2, ping: true }],
  ],
  [
    ["probe", "canary", "t", "--agent", "a"],
    "probe.canary",
    ["t", { agent: ["a"], n: "5", concurrency: 2, ping: true }],
  ],
  [["export", "harbor", "--out", "x"], "export.harbor", [[], { out: "x" }]],
  [
    [
      "export",
      "harbor",
      "a",
      "--out",
      "x",
      "--for-training",
      "--push",
      "127.0.0.1:5000/team",
      "--from",
      "r1",
      "--only",
      "retained",
    ],
    "export.harbor",
    [["a"], { out: "x", forTraining: true, push: "127.0.0.1:5000/team", from: "r1", only: "retained" }],
  ],
  [
    ["export", "benchflow", "a", "--out", "x", "--condition", "+A", "--condition", "-A", "--force", "--json"],
    "export.benchflow",
    [["a"], { out: "x", condition: ["+A", "-A"], force: true, json: true }],
  ],
  [
    ["export", "trajectories", "r1", "--format", "atif", "--out", "x", "--json"],
    "export.trajectories",
    ["r1", { format: "atif", out: "x", json: true }],
  ],
  [
    ["export", "rows", "--out", "x"],
    "export.rows",
    [[], { out: "x", format: "verl", reward: "binary", seed: "0" }],
  ],
  [
    ["export", "rows", "a", "--out", "x", "--format", "jsonl", "--from", "r1", "--only", "retained"],
    "export.rows",
    [["a"], { out: "x", format: "jsonl", from: "r1", only: "retained", reward: "binary", seed: "0" }],
  ],
  [
    [
      "export",
      "rows",
      "--out",
      "x",
      "--reward",
      "ignorance-aware",
      "--payoff",
      "p.json",
      "--split",
      "eval=0.2",
      "--seed",
      "7",
      "--condition",
      "-A",
      "--force",
      "--json",
    ],
    "export.rows",
    [
      [],
      {
        out: "x",
        format: "verl",
        reward: "ignorance-aware",
        payoff: "p.json",
        split: "eval=0.2",
        seed: "7",
        condition: ["-A"],
        force: true,
        json: true,
      },
    ],
  ],
  [["import", "harbor", "dir", "--id", "t", "--json"], "import.harbor", ["dir", { id: "t", json: true }]],
  [
    ["exam", "arith", "--agent", "a"],
    "exam",
    [
      "arith",
      {
        agent: "a",
        condition: "+A",
        n: "5,10,20",
        exams: "5",
        scheme: "fixed",
        order: "random",
        prompt: "baseline",
        seed: "2",
        trials: "3",
        concurrency: 2,
        ping: true,
      },
    ],
  ],
  [
    ["exam", "--inline-tasks", "alpha,beta", "--agent", "a", "--condition", "-A"],
    "exam",
    [
      undefined,
      {
        inlineTasks: "alpha,beta",
        agent: "a",
        condition: "-A",
        n: "5,10,20",
        exams: "5",
        scheme: "fixed",
        order: "random",
        prompt: "baseline",
        seed: "2",
        trials: "3",
        concurrency: 2,
        ping: true,
      },
    ],
  ],
  [
    [
      "exam",
      "--tasks",
      "all",
      "--agent",
      "a",
      "--budget",
      "9000",
      "--tau",
      "8",
      "--scheme",
      "random,aligned",
      "--resume",
      "r",
    ],
    "exam",
    [
      undefined,
      {
        tasks: "all",
        agent: "a",
        condition: "+A",
        n: "5,10,20",
        exams: "5",
        scheme: "random,aligned",
        order: "random",
        prompt: "baseline",
        seed: "2",
        trials: "3",
        concurrency: 2,
        ping: true,
        budget: "9000",
        tau: "8",
        resume: "r",
      },
    ],
  ],
  [
    [
      "exam",
      "--tasks",
      "alpha,beta",
      "--agent",
      "a",
      "--budget",
      "50000",
      "--make-reference",
      "ref.jsonl",
      "--trials",
      "2",
      "--concurrency",
      "4",
    ],
    "exam",
    [
      undefined,
      {
        tasks: "alpha,beta",
        agent: "a",
        condition: "+A",
        n: "5,10,20",
        exams: "5",
        scheme: "fixed",
        order: "random",
        prompt: "baseline",
        seed: "2",
        trials: "2",
        budget: "50000",
        makeReference: "ref.jsonl",
        concurrency: 4,
        ping: true,
      },
    ],
  ],
  [
    ["report", "r2", "--out", "o", "--format", "latex", "--json"],
    "report",
    ["r2", { out: "o", format: "latex", json: true }],
  ],
];

describe("argv to options", () => {
  it.each(TABLE)("%j", async (argv, verb, args) => {
    const parsed = await parse(argv);
    expect(parsed.verb).toBe(verb);
    expect(parsed.args).toEqual(args);
  });

  it("every verb in the table has a module, and every module a row", () => {
    expect(new Set(TABLE.map(([, verb]) => verb))).toEqual(new Set(Object.keys(VERBS)));
  });

  it("--root reaches the verb as its project root", async () => {
    expect((await parse(["--root", "/tmp/elsewhere", "list"])).root).toBe("/tmp/elsewhere");
  });

  it("refuses a missing required option and a bad choice before any verb runs", async () => {
    await expect(parse(["run", "t"])).rejects.toThrow(/required option '--agent <name>'/);
    await expect(parse(["audit", "--format", "xml"])).rejects.toThrow(
      /Allowed choices are text, json, sarif/,
    );
    await expect(parse(["hook", "remove"])).rejects.toThrow(/Allowed choices are install, uninstall/);
  });

  it("reports a misspelt option as unknown, with the option meant, not as a missing required one", async () => {
    // commander checks required options before unknown ones: `--agnet` was "required option '--agent' not specified"
    await expect(parse(["run", "t", "--agnet", "oracle"])).rejects.toThrow(
      "error: unknown option '--agnet'\n(Did you mean --agent?)",
    );
    await expect(parse(["probe", "recite", "t", "--agnt", "mid"])).rejects.toThrow(
      "error: unknown option '--agnt'\n(Did you mean --agent?)",
    );
    await expect(parse(["export", "harbor", "--ot", "x"])).rejects.toThrow(/unknown option '--ot'/);
    await expect(parse(["triage", "score", "--phase0", "p.jsonl", "--plan", "plan.json"])).rejects.toThrow(
      "error: required option '--budget <tokens>' not specified",
    );
  });
});

describe("the exit point: the user's errors and kgate's bugs", () => {
  it("turns a user's error into a UsageError (one line) and keeps a programming error as it is", async () => {
    const { usageOrBug, UsageError } = await import("../src/errors.ts");
    expect(usageOrBug(new Error('no task "x"'))).toBeInstanceOf(UsageError);
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    expect(usageOrBug(bug)).toBe(bug);
    expect(usageOrBug(new RangeError("Maximum call stack size exceeded"))).toBeInstanceOf(RangeError);
  });
});
