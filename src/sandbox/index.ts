// The sandbox concern's public face: the provider interface (images, sandboxes, the sweep, a run's
// removal, the doctor's checks, placement on hosts), the provider kgate.config.json names, the
// defaults of optional capabilities, the agent-facing Sandbox, labels, layout and interrupts. No
// provider's class leaves this folder: everything else reaches a sandbox through a SandboxProvider.

export type { PackFile } from "./archive.ts";
export { type Leftovers, putFiles, reapLeftovers, sandboxesRemoved } from "./capabilities.ts";
export {
  loadSandboxConfig,
  type SandboxConfig,
  SandboxConfigError,
  sandboxProviderFor,
} from "./config.ts";
export { type ImageSource, imageSourceOf, planImage } from "./image-source.ts";
export { type HostRemoval, InterruptedError, removeOnInterrupt, removeRunEverywhere } from "./interrupt.ts";
export { containerLabels, LABEL, LABEL_OWNER, LABEL_RUN } from "./labels.ts";
export { SANDBOX_WORKDIR } from "./layout.ts";
export type {
  CommonSettings,
  DeclaredOutput,
  DerivedImageSpec,
  DoctorCheck,
  HostReport,
  HostSweep,
  OutputFile,
  Placement,
  ProviderRegistration,
  SandboxImage,
  SandboxProvider,
  SandboxSpec,
  TrialSandbox,
} from "./provider.ts";
export * from "./types.ts";
