// Test support (vitest globalSetup of the docker project): fails the run in one line naming the
// setup step when no Docker daemon answers; builds or finds the sandbox image once per test run and
// hands its tag to every test file; removes containers that dead kgate processes left behind.
import type { TestProject } from "vitest/node";
import { reapDeadFolders } from "../../src/common/index.ts";
import { projectPaths } from "../../src/project.ts";
import { DockerClient } from "../../src/sandbox/docker/client.ts";
import { ensureSandboxImage } from "../../src/sandbox/docker/image.ts";
import { reapDeadRuns } from "../../src/sandbox/docker/reaper.ts";
import { SETUP_STEP } from "./requirements.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The sandbox image tag, or the reason there is none (the build failed). */
    sandboxImage: { tag: string } | { error: string };
  }
}

export default async function setup(project: TestProject) {
  const docker = new DockerClient();
  try {
    await docker.ping();
  } catch (err) {
    // One line, no stack: the Docker tests cannot run, and skipping them would hide it.
    const missing = new Error(
      `the Docker tests need a Docker daemon (${(err as Error).message}): ${SETUP_STEP}`,
    );
    missing.stack = missing.message;
    throw missing;
  }
  try {
    await Promise.all([reapDeadRuns(docker), reapDeadFolders()]);
    const tag = await ensureSandboxImage(projectPaths(process.cwd()), {
      docker,
      onProgress: (line) => process.stderr.write(`[sandbox image] ${line}\n`),
    });
    project.provide("sandboxImage", { tag });
  } catch (err) {
    project.provide("sandboxImage", { error: (err as Error).message });
  }
}
