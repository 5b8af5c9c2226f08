// Each Docker host kgate.config.json names (`sandbox.hosts`, else the one endpoint) on its own, for
// what looks at every host in turn: `kgate sandbox doctor`, `kgate sandbox reap`, and the removal of
// an interrupted run's containers.
import type { ProjectPaths } from "../../project.ts";
import { loadSandboxConfig, poolHosts } from "../config.ts";
import { DockerClient } from "./client.ts";
import { type DoctorCheck, runDoctor } from "./doctor.ts";
import { describeEndpoint, dockerOptions } from "./provider.ts";
import { type ReapResult, reapDeadRuns, removeRunContainers } from "./reaper.ts";

export interface ConfiguredHost {
  name: string;
  /** The endpoint (`local`: DOCKER_HOST, else the local socket). */
  endpoint: string;
  /** Trials at once on this host; null for the one endpoint (no limit of its own). */
  capacity: number | null;
  /** What the sandbox needs there; a daemon that does not answer is a failed `daemon` check. */
  doctor(): Promise<DoctorCheck[]>;
  /** Removes what kgate processes that are gone left there. Rejects with SandboxUnavailableError. */
  reap(): Promise<ReapResult>;
  /** Removes every container and volume of one run there; how many containers. Rejects with SandboxUnavailableError. */
  removeRun(runId: string): Promise<number>;
}

/**
 * The configured hosts, in the order of kgate.config.json. Throws SandboxConfigError for a bad
 * `sandbox` section, and the read error (ENOENT) for a TLS file that is not there.
 */
export function configuredHosts(paths: ProjectPaths): ConfiguredHost[] {
  return poolHosts(loadSandboxConfig(paths), paths.root).map((host) => {
    const docker = new DockerClient(dockerOptions(host.endpoint));
    return {
      name: host.name,
      endpoint: describeEndpoint(host.endpoint),
      capacity: Number.isFinite(host.capacity) ? host.capacity : null,
      doctor: () => runDoctor(paths, docker),
      reap: () => reapDeadRuns(docker),
      removeRun: (runId) => removeRunContainers(runId, docker),
    };
  });
}
