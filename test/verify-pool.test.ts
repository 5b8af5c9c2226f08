// The verification workers kept between trials (src/verify/worker-pool.ts): one worker serves a run of
// verifications with the same verdicts as a fresh one each; it is replaced after its jobs, after a
// timeout, a throw or a death, and when it has been idle too long; jobs that overlap get workers of
// their own, and only `maxIdle` of them are kept.
import { describe, expect, it } from "vitest";
import { compiledVerifier } from "../src/verify/compiled.ts";
import { VerifierRunError, verifyTrial } from "../src/verify/index.ts";
import { type PoolOptions, VerifierPool } from "../src/verify/worker-pool.ts";
import type { WorkerJob } from "../src/verify/worker-verify.ts";
import { HAND, markupOutputs, markupProject } from "./support/verify-fixture.ts";

/** The bundle's worker entry, as killable.ts picks it when kgate runs from dist/ (bundle-setup builds it). */
const ENTRY = new URL("../dist/verify-worker.js", import.meta.url);

function pool(options: Partial<PoolOptions> = {}): VerifierPool {
  return new VerifierPool({
    entry: ENTRY,
    heapMb: 256,
    jobsPerWorker: 100,
    maxIdle: 2,
    idleMs: 30_000,
    ...options,
  });
}

/** A markup project whose verifier's reference answer runs `body` (a loop, a growing array, a throw). */
async function jobWithSolve(body: string): Promise<WorkerJob> {
  const project = markupProject({
    verifier: () =>
      `export default { conventions: { artefact: {}, default: {}, variants: { perturbed: {}, compressed: {} } }, solve() { ${body} } };\n`,
  });
  const task = project.load();
  return {
    root: project.paths.root,
    taskId: task.id,
    outputs: markupOutputs(HAND.artefact),
    verifierModule: await compiledVerifier(task),
  };
}

async function markupJobs() {
  const project = markupProject();
  const task = project.load();
  const verifierModule = await compiledVerifier(task);
  const job = (values: typeof HAND.artefact): WorkerJob => ({
    root: project.paths.root,
    taskId: task.id,
    outputs: markupOutputs(values),
    verifierModule,
  });
  return { task, job };
}

describe("the verification worker pool", () => {
  it("serves one verification after another from one worker, with the verdicts of this thread", async () => {
    const { task, job } = await markupJobs();
    const workers = pool();
    const hands = [HAND.artefact, HAND.default, HAND.perturbed, HAND.artefact];
    for (const values of hands) {
      const verdict = await workers.run(job(values), 60_000);
      expect(verdict).toEqual(await verifyTrial(task, markupOutputs(values)));
    }
    // The control: the artefact's rows pass, the default convention's and the perturbed one's fail.
    expect((await workers.run(job(HAND.artefact), 60_000)).status).toBe("pass");
    expect((await workers.run(job(HAND.default), 60_000)).status).toBe("fail");
    expect(workers.started).toBe(1);
  });

  it("replaces a worker after `jobsPerWorker` jobs: 5 jobs at 2 a worker start 3 workers", async () => {
    const { job } = await markupJobs();
    const workers = pool({ jobsPerWorker: 2 });
    for (let i = 0; i < 5; i++) expect((await workers.run(job(HAND.artefact), 60_000)).status).toBe("pass");
    expect(workers.started).toBe(3);
  });

  it("gives overlapping jobs a worker each and keeps `maxIdle` of them afterwards", async () => {
    const { job } = await markupJobs();
    const workers = pool({ maxIdle: 1 });
    const verdicts = await Promise.all([1, 2, 3].map(() => workers.run(job(HAND.artefact), 60_000)));
    expect(verdicts.map((v) => v.status)).toEqual(["pass", "pass", "pass"]);
    expect(workers.started).toBe(3);
    // Two of the three were ended; the kept one serves the next two jobs, one after the other.
    await workers.run(job(HAND.default), 60_000);
    await workers.run(job(HAND.default), 60_000);
    expect(workers.started).toBe(3);
  });

  it("kills a verifier at its limit and starts a fresh worker for the next job", async () => {
    const { job } = await markupJobs();
    const workers = pool();
    expect((await workers.run(job(HAND.artefact), 60_000)).status).toBe("pass");
    const looping = await jobWithSolve("for (;;) {}");
    const started = Date.now();
    const outcome = await workers.run(looping, 1500).catch((err: unknown) => err);
    expect(outcome).toBeInstanceOf(VerifierRunError);
    expect(outcome).toMatchObject({ reason: "timeout", message: "the verifier did not finish within 1.5 s" });
    expect(Date.now() - started).toBeLessThan(20_000);
    // The looping worker is gone: the next job has a new one (2 started), and it passes.
    expect((await workers.run(job(HAND.artefact), 60_000)).status).toBe("pass");
    expect(workers.started).toBe(2);
  });

  it("reports a worker that runs out of memory as a crash, and does not use it again", async () => {
    const { job } = await markupJobs();
    const workers = pool({ heapMb: 64 });
    const growing = await jobWithSolve("const a = []; for (;;) a.push(new Array(1e6).fill(1));");
    const outcome = await workers.run(growing, 60_000).catch((err: unknown) => err);
    expect(outcome).toMatchObject({ name: "VerifierRunError", reason: "crash" });
    expect((await workers.run(job(HAND.artefact), 60_000)).status).toBe("pass");
    expect(workers.started).toBe(2);
  });

  it("ends a worker that has been idle for `idleMs`", async () => {
    const { job } = await markupJobs();
    const workers = pool({ idleMs: 100 });
    await workers.run(job(HAND.artefact), 60_000);
    await new Promise((r) => setTimeout(r, 400));
    await workers.run(job(HAND.artefact), 60_000);
    expect(workers.started).toBe(2);
  });
});
