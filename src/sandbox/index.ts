// The sandbox concern's public face: the provider interface (images, sandboxes, the sweep, placement
// on a pool) and the provider kgate.config.json names, the agent-facing Sandbox, the configured hosts
// one by one (doctor, reap), labels and interrupts, owned temp folders. No Docker class leaves this
// folder: everything else reaches Docker through a SandboxProvider.

export type { PackFile } from "./archive.ts";
export {
  loadSandboxConfig,
  poolHosts,
  SANDBOX_PROVIDERS,
  SandboxConfig,
  SandboxConfigError,
  sandboxProviderFor,
} from "./config.ts";
export { type ConfiguredHost, configuredHosts } from "./docker/configured-hosts.ts";
export { SANDBOX_HOME, SANDBOX_WORKDIR } from "./docker/container.ts";
export { DISK_CAP_MECHANISM, type DiskCapMechanism } from "./docker/disk.ts";
export type { DoctorCheck } from "./docker/doctor.ts";
export { AllHostsDownError, type PoolHost } from "./docker/host-pool.ts";
export { HostDownError } from "./docker/hosted-sandbox.ts";
export { planImage } from "./docker/image.ts";
export {
  containerLabels,
  LABEL,
  LABEL_OWNER,
  LABEL_RUN,
  LABEL_TRIAL,
  type ReapResult,
} from "./docker/reaper.ts";
export { type HostRemoval, InterruptedError, removeOnInterrupt, removeRunEverywhere } from "./interrupt.ts";
export { unsafeOutputPath } from "./outputs.ts";
export type {
  DeclaredOutput,
  DerivedImageSpec,
  OutputFile,
  Placement,
  SandboxImage,
  SandboxProvider,
  SandboxSpec,
  TrialSandbox,
} from "./provider.ts";
export * from "./types.ts";
