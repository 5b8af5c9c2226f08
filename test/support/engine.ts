// Test support: trials through the real engine and sandbox runner (on the local daemon with the image
// the global setup built, or on a provider the test gives), the way `kgate run` drives them.
import type { Agent } from "../../src/agents/index.ts";
import type { ProjectPaths } from "../../src/project.ts";
import type { Condition, TrialRecord } from "../../src/record/index.ts";
import type { DockerSandbox } from "../../src/sandbox/docker/container.ts";
import { DockerProvider } from "../../src/sandbox/docker/provider.ts";
import type { SandboxImage, SandboxProvider, SandboxSpec } from "../../src/sandbox/index.ts";
import type { LoadedTask } from "../../src/task/index.ts";
import { agentInfoOf, openSandboxRunner, TrialEngine, type VerifyTrial } from "../../src/trial/index.ts";
import { sandboxImage } from "./sandbox.ts";

/** The local Docker daemon, with the image of the global setup whatever the project's sandbox/ holds. */
export class TestDockerProvider extends DockerProvider {
  override prepareImage(): Promise<SandboxImage> {
    return Promise.resolve({ ref: sandboxImage(), id: null, base: null });
  }
}

const testProvider = new TestDockerProvider();

/** What a test asks of a sandbox: a SandboxSpec whose image defaults to the tests' and limits to a few. */
export interface TestSandboxSpec {
  image?: string;
  limits: Pick<SandboxSpec["limits"], "cpus" | "memoryMb" | "pids"> & Partial<SandboxSpec["limits"]>;
  labels: Record<string, string>;
  network?: boolean;
  requirements?: SandboxSpec["requirements"];
  /** The sandbox's own deadline (default 1200 s: a trial's of 600 s). */
  deadlineSec?: number;
}

/** A sandbox from the provider (the local daemon), as a trial's create phase makes one. */
export function providerSandbox(spec: TestSandboxSpec): Promise<DockerSandbox> {
  return testProvider.create({
    image: spec.image ?? sandboxImage(),
    limits: spec.limits as SandboxSpec["limits"],
    deadlineSec: spec.deadlineSec ?? 1200,
    network: spec.network ?? false,
    labels: spec.labels,
    requirements: spec.requirements,
  });
}

/** What runTrial needs of a sandbox in tests: the provider and its image. */
export function sandboxTarget(): { provider: DockerProvider; image: SandboxImage } {
  return { provider: new TestDockerProvider(), image: { ref: sandboxImage(), id: null, base: null } };
}

export interface EngineTrials {
  paths: ProjectPaths;
  task: LoadedTask;
  condition: Condition;
  agent: Agent;
  runId: string;
  runDir: string;
  n: number;
  retries?: number;
  concurrency?: number;
  verify?: VerifyTrial | null;
  /** Follow-up turns after each trial's agent (the monitoring probes' hook). */
  followUp?: Parameters<typeof openSandboxRunner>[0]["followUp"];
  signal?: AbortSignal;
  onRecord?: (record: TrialRecord) => void;
  /** Default: the local daemon with the global setup's image (TestDockerProvider). */
  provider?: SandboxProvider;
}

/** n trials of one cell through the engine; every attempt reaches onRecord, the last of each is returned. */
export async function engineTrials(o: EngineTrials): Promise<TrialRecord[]> {
  const sandbox = await openSandboxRunner({
    paths: o.paths,
    agents: [o.agent],
    provider: o.provider ?? new TestDockerProvider(),
    verify: o.verify,
    ...(o.followUp ? { followUp: o.followUp } : {}),
  });
  try {
    const engine = new TrialEngine({
      runId: o.runId,
      runDir: o.runDir,
      runner: sandbox.runner,
      concurrency: o.concurrency ?? 1,
      retries: o.retries,
      signal: o.signal,
      events: { finished: (_job, record) => o.onRecord?.(record) },
    });
    const agent = agentInfoOf(o.agent);
    return await engine.runAll(
      Array.from({ length: o.n }, (_, index) => ({ task: o.task, condition: o.condition, agent, index })),
    );
  } finally {
    await sandbox.close();
  }
}
