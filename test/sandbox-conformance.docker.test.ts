// The provider conformance suite (test/support/conformance.ts) on the Docker provider and on a pool of
// Docker hosts (here one host, the local daemon: the pool's placement and guarded sandboxes on top of
// the same daemon). A run's leftovers on Docker are its containers and its disk volumes.
import { DockerClient } from "../src/sandbox/docker/client.ts";
import { LABEL, LABEL_RUN } from "../src/sandbox/index.ts";
import { providerConformance } from "./support/conformance.ts";

const docker = new DockerClient();
const leftovers = async (runId: string) => {
  const labels = [`${LABEL}=1`, `${LABEL_RUN}=${runId}`];
  const containers = await docker.listContainers(labels);
  const volumes = await docker.listVolumes(labels);
  return [...containers.map((c) => `container ${c.id}`), ...volumes.map((v) => `volume ${v.name}`)];
};

providerConformance({ name: "docker", sandbox: { provider: "docker" }, leftovers });
providerConformance({
  name: "docker pool",
  sandbox: {
    provider: "docker",
    hosts: [{ name: "here", host: "unix:///var/run/docker.sock", capacity: 8 }],
  },
  leftovers,
});
