// The sandbox concern's public face: the Sandbox interface, the Docker implementation, the image,
// the capped disk, output collection, the reaper (containers, volumes, temp folders) and the doctor.

export {
  loadSandboxConfig,
  poolHosts,
  SANDBOX_PROVIDERS,
  SandboxConfig,
  SandboxConfigError,
  sandboxProviderFor,
} from "./config.ts";
export {
  type ContainerOptions,
  DEADLINE_SLACK_SEC,
  DockerSandbox,
  keepaliveFor,
  SANDBOX_HOME,
  SANDBOX_WORKDIR,
} from "./container.ts";
export { DISK_CAP_MECHANISM, type DiskCapMechanism } from "./disk.ts";
export { DockerClient } from "./docker.ts";
export { type DockerEndpoint, DockerProvider, dockerOptions } from "./docker-provider.ts";
export { type DoctorCheck, runDoctor } from "./doctor.ts";
export { type FolderKind, OWNERLESS_MIN_AGE_MS, ownedTempDir, reapDeadFolders } from "./folders.ts";
export { AllHostsDownError, HostPoolProvider, type PoolHost } from "./host-pool.ts";
export { HostDownError } from "./hosted-sandbox.ts";
export { ensureSandboxImage, type ImageOptions, planImage } from "./image.ts";
export { collectOutputs, unsafeOutputPath } from "./outputs.ts";
export { ownerAlive, ownerLabel } from "./owner.ts";
export type {
  DeclaredOutput,
  OutputFile,
  Placement,
  SandboxImage,
  SandboxProvider,
  SandboxSpec,
  TrialSandbox,
} from "./provider.ts";
export {
  containerLabels,
  InterruptedError,
  LABEL,
  LABEL_OWNER,
  LABEL_RUN,
  LABEL_TRIAL,
  reapDeadRuns,
  reapDeadRunsOnce,
  removeOnInterrupt,
  removeRunContainers,
} from "./reaper.ts";
export * from "./types.ts";
