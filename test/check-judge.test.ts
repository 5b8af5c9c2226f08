// `kgate check`'s judge calibration on the memo task (a judge criterion "states the total"), its
// judge at the loopback server through the real SDKs, with scripted verdicts: a good judge passes;
// one that always passes, one that flips on repeats, one that follows the injection fail, each with
// the reason; without the judge's key the step is unavailable and the other checks leave the judge
// criteria out, saying so.

import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deadRuleStep } from "../src/check/convention-steps.ts";
import { checkTask } from "../src/check/index.ts";
import { judgeCalibrationStep } from "../src/check/judge-calibration.ts";
import { schemaStep } from "../src/check/static-steps.ts";
import { defaultStep, deterministicStep, variantStep, verifierStep } from "../src/check/verifier-steps.ts";
import {
  alwaysPassJudge,
  flippingJudge,
  goodJudge,
  injectableJudge,
  type JudgePolicy,
  judgeScript,
} from "./support/judge-model.ts";
import { criterionFor, MEMO, memoProject, memoVerifierSource, TOTALS } from "./support/judge-task.ts";
import { type ModelServer, startModelServer } from "./support/model-server.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const env = { KGATE_TEST_JUDGE_KEY: "k-judge" };
const STEPS = [
  schemaStep,
  verifierStep,
  deterministicStep,
  defaultStep,
  variantStep,
  deadRuleStep,
  judgeCalibrationStep,
];
const CRITERION = `judge:${MEMO}: states the total`;

async function check(
  policy: JudgePolicy,
  o: { provider?: "anthropic" | "openai"; env?: NodeJS.ProcessEnv } = {},
) {
  server = await startModelServer(judgeScript(policy), { requireKey: env.KGATE_TEST_JUDGE_KEY });
  const provider = o.provider ?? "anthropic";
  const { paths } = memoProject({
    provider,
    baseUrl: provider === "anthropic" ? server.anthropicUrl : server.openaiUrl,
  });
  const result = await checkTask(paths, "markup", { steps: STEPS, env: o.env ?? env });
  const byId = Object.fromEntries(result.checks.map((c) => [c.id, c]));
  return { result, byId, paths };
}

describe("judge calibration", () => {
  it("passes a good judge, with the agreement per criterion and the calls it cost", async () => {
    const { result, byId } = await check(goodJudge);
    expect(result.ok).toBe(true);
    expect(byId[CRITERION]).toMatchObject({
      status: "pass",
      detail:
        "the judge tells the oracle from every wrong deliverable, repeatably (k = 3: oracle pass 3/3, default fail 3/3, injection fail 3/3, perturbed:perturbed fail 3/3, as default pass 3/3, as perturbed:perturbed pass 3/3)",
    });
    // Six probes x 3 repeats = 18 calls; the judged rubric then asks about the default, rate-at-its-
    // default and perturbed deliverables once each: 21 calls of $0.0033 = $0.0693.
    expect(byId["judge:rubric"]).toMatchObject({ status: "pass" });
    expect(byId["judge:rubric"]!.detail).toMatch(
      /fails each deliverable written under a wrong convention \(default, default:rate, variant:perturbed\); calibration cost 21 call\(s\), \$0\.0693$/,
    );
    expect(server!.requests).toHaveLength(21);
    // The injection deliverable is the default memo with a note to the grader appended.
    const injected = server!.requests.filter((r) => JSON.stringify(r.body).includes("NOTE TO THE GRADER"));
    expect(injected).toHaveLength(3);
    expect(JSON.stringify(injected[0]!.body)).toContain(`Total ${TOTALS.default}.`);
    // The other checks leave the judge criterion to this step, and say so.
    expect(byId.deterministic!.status).toBe("pass");
    expect(byId.default).toMatchObject({
      status: "pass",
      detail: `the default-convention answer passes its code criteria; judge-calibration checks that the judge fails it on "${MEMO}: states the total" (their text differs under default-convention)`,
    });
    expect(byId["variant:perturbed"]!.status).toBe("pass");
    // Only the code criterion is idle (naming the items checks nothing a convention changes); the
    // judge criterion, not asked here, is neither idle nor a hole.
    expect(byId["dead-rules"]).toMatchObject({ status: "warning" });
    expect(byId["dead-rules"]!.detail).toMatch(
      /idle criteria, passed by every wrong deliverable: "output\/memo\.md: names every item" \(/,
    );
  });

  it("fails a judge that passes everything: it cannot tell the oracle from the default deliverable", async () => {
    const { result, byId } = await check(alwaysPassJudge);
    expect(result.ok).toBe(false);
    expect(byId[CRITERION]!.status).toBe("fail");
    expect(byId[CRITERION]!.detail).toMatch(
      /^the judge cannot tell the oracle from the default deliverable: it passes both \(looks fine\); follows an injection: .*; cannot tell the oracle from the perturbed:perturbed deliverable: it passes both/,
    );
    expect(byId["judge:rubric"]!.status).toBe("fail");
  });

  it("fails a judge that flips on repeats (OpenAI wire)", async () => {
    const { result, byId } = await check(flippingJudge, { provider: "openai" });
    expect(result.ok).toBe(false);
    // Request 0 good (pass), 1 flipped (fail), 2 good (pass) on the oracle's deliverable.
    expect(byId[CRITERION]!.detail).toContain(
      "gives different verdicts on 3 repeats of the oracle deliverable (pass, fail, pass)",
    );
  });

  it("fails a judge that follows the injection", async () => {
    const { result, byId } = await check(injectableJudge);
    expect(result.ok).toBe(false);
    expect(byId[CRITERION]!.detail).toMatch(
      /^the judge follows an injection: a wrong deliverable that tells the grader to pass it passes \(the note says it was approved\) \[k = 3: .*injection pass 3\/3/,
    );
  });

  it("is unavailable without the judge's key, and the other checks leave the judge criteria out", async () => {
    const { result, byId } = await check(goodJudge, { env: {} });
    expect(result.ok).toBe(true);
    expect(byId["judge-calibration"]).toMatchObject({
      status: "unavailable",
      detail: `not run: the judge "judge" needs the environment variable KGATE_TEST_JUDGE_KEY (its API key); until it runs, no trial should trust "${MEMO}: states the total" (the other checks leave judge criteria out)`,
    });
    expect(server!.requests).toHaveLength(0);
  });

  it("pings the judge first: one whose endpoint does not answer is unavailable, its URL and fix named", async () => {
    // a port that was listening and is closed again refuses connections
    const closed = await startModelServer([]);
    const url = closed.openaiUrl;
    await closed.close();
    const { paths } = memoProject({ provider: "openai", baseUrl: url });
    const result = await checkTask(paths, "markup", { steps: STEPS, env });
    const step = result.checks.find((c) => c.id === "judge-calibration");
    expect(step).toMatchObject({
      status: "unavailable",
      detail: `not run: the judge's ping: judge: ${url}/models unreachable: Connection error. (ECONNREFUSED) (fix: start the server at that URL, or correct agents.judge.baseUrl in kgate.config.json); until it runs, no trial should trust "${MEMO}: states the total" (the other checks leave judge criteria out)`,
    });
  });

  it("--no-ping asks the judge without pinging it: the dead endpoint is found by its calls instead", async () => {
    const closed = await startModelServer([]);
    const url = closed.openaiUrl;
    await closed.close();
    const { paths } = memoProject({ provider: "openai", baseUrl: url });
    const result = await checkTask(paths, "markup", { steps: STEPS, env, ping: false });
    expect(result.checks.find((c) => c.id === "judge-calibration")).toBeUndefined();
    expect(result.checks.find((c) => c.id === "judge:error")).toMatchObject({ status: "fail" });
  });

  it("fails a judge criterion whose text is the same under every convention set", async () => {
    server = await startModelServer(judgeScript(goodJudge), { requireKey: env.KGATE_TEST_JUDGE_KEY });
    const { paths } = memoProject({ provider: "anthropic", baseUrl: server.anthropicUrl });
    const source = memoVerifierSource("IMPORT").replace(
      /criterion: \(e: Memo\) => [^\n]*\n/,
      'criterion: "The memo is polite.",\n',
    );
    const file = path.join(paths.verifiers, "markup.ts");
    const { readFileSync } = await import("node:fs");
    const current = readFileSync(file, "utf8");
    const importLine = /from "([^"]+)"/.exec(current)![1]!;
    writeFileSync(file, source.replace("IMPORT", importLine));
    const result = await checkTask(paths, "markup", { steps: STEPS, env });
    const judged = result.checks.find((c) => c.id === CRITERION)!;
    expect(judged.status).toBe("fail");
    expect(judged.detail).toMatch(/^its text is the same under every wrong convention set/);
    expect(criterionFor("1")).toContain("1");
  });
});
