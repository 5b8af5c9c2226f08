// The provider conformance suite (test/support/conformance.ts) on the Docker provider and on a pool of
// Docker hosts (here one host, the local daemon: the pool's placement and guarded sandboxes on top of
// the same daemon). A run's leftovers on Docker are its containers and its disk volumes.
import { describe, expect, it } from "vitest";
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { HostPoolProvider } from "../src/sandbox/docker/host-pool.ts";
import { DockerProvider } from "../src/sandbox/docker/provider.ts";
import { LABEL, LABEL_RUN, sandboxProviderFor } from "../src/sandbox/index.ts";
import { type ConformanceTarget, configured, providerConformance } from "./support/conformance.ts";
import { tempProject } from "./support/project.ts";

const docker = new DockerClient();
const leftovers = async (runId: string) => {
  const labels = [`${LABEL}=1`, `${LABEL_RUN}=${runId}`];
  const containers = await docker.listContainers(labels);
  const volumes = await docker.listVolumes(labels);
  return [...containers.map((c) => `container ${c.id}`), ...volumes.map((v) => `volume ${v.name}`)];
};

const single: ConformanceTarget = { name: "docker", sandbox: { provider: "docker" }, leftovers };
const pool: ConformanceTarget = {
  name: "docker pool",
  sandbox: {
    provider: "docker",
    hosts: [{ name: "here", host: "unix:///var/run/docker.sock", capacity: 8 }],
  },
  leftovers,
};

describe("the conformance targets", () => {
  it("are two providers: Docker's own, and a pool of hosts (so the suite below runs on each)", () => {
    expect(sandboxProviderFor(configured(single, tempProject("file")))).toBeInstanceOf(DockerProvider);
    expect(sandboxProviderFor(configured(pool, tempProject("file")))).toBeInstanceOf(HostPoolProvider);
  });
});

providerConformance(single);
providerConformance(pool);
