// `kgate check supplier-memo` end to end: the library's judge-graded task with its oracle, noop and
// variant trials in the real sandbox, its judge at the loopback server through the real Anthropic SDK,
// scripted (goodJudge: a policy that passes a memo stating every figure the criterion names, not a
// model's judgement). Every step passes, the sandbox trials are judged (none says "not judged"), and
// the judge calibration's lines give the agreement per deliverable.
import { afterAll, describe, expect, it } from "vitest";
import { kgateInProcess } from "./support/cli-in-process.ts";
import { goodJudge, judgeRequestOf, judgeScript, writeJudgeConfig } from "./support/judge-model.ts";
import { copyLibraryTask } from "./support/library-task.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";
import { tempProject } from "./support/project.ts";
import { sandboxImage } from "./support/sandbox.ts";

const ID = "supplier-memo";
const OUTPUT = "output/recommendation.md";

interface CheckJson {
  tasks: Array<{ id: string; ok: boolean; checks: Array<{ id: string; status: string; detail: string }> }>;
}

let server: ModelServer | undefined;
const previousKey = process.env.KGATE_TEST_JUDGE_KEY;
afterAll(async () => {
  await server?.close();
  if (previousKey === undefined) delete process.env.KGATE_TEST_JUDGE_KEY;
  else process.env.KGATE_TEST_JUDGE_KEY = previousKey;
});

describe("kgate check of a task graded by judge criteria (real sandbox, loopback judge)", () => {
  it("passes every step, the sandbox trials judged from the host", async () => {
    sandboxImage();
    server = await startModelServer(judgeScript(goodJudge), { requireKey: "k-judge" });
    const paths = tempProject("file");
    copyLibraryTask(paths, ID);
    writeJudgeConfig(paths, { provider: "anthropic", baseUrl: server.anthropicUrl });
    process.env.KGATE_TEST_JUDGE_KEY = "k-judge";
    const result = await kgateInProcess(["--root", paths.root, "check", ID, "--json"]);
    const [task] = (JSON.parse(result.stdout) as CheckJson).tasks;
    const byId = Object.fromEntries(task!.checks.map((c) => [c.id, c]));
    expect(
      task!.checks.filter((c) => c.status !== "pass"),
      result.stderr,
    ).toEqual([]);
    expect(result.code).toBe(0);
    // the sandbox steps ran and asked the judge: none left its judge criteria unjudged
    for (const id of ["oracle", "noop", "oracle:variant:perturbed", "oracle:variant:compressed"])
      expect(byId[id]?.status, id).toBe("pass");
    expect(task!.checks.filter((c) => c.detail.includes("not judged"))).toEqual([]);
    expect(byId[`judge:${OUTPUT}: names the runner-up`]!.detail).toContain(
      "oracle pass 3/3, default fail 3/3, injection fail 3/3, perturbed:perturbed fail 3/3",
    );
    expect(byId["judge:rubric"]!.status).toBe("pass");
    // the oracle's own memo (solve.py's wording, not render's), written in the sandbox, reached the judge
    const judged = server.requests.map(judgeRequestOf);
    const fromSandbox = judged.filter((r) => r.deliverable.includes("To: Purchasing. Subject: award"));
    expect(
      fromSandbox.some((r) => r.deliverable.includes("Runner-up: Halvorsen Castings, at 13.31 USD")),
    ).toBe(true);
  }, 600_000);
});
