// The defaults of a provider's optional capabilities, for the code that uses them: files copied in one
// writeFile at a time when the provider has no putFiles, and the sweep of what dead kgate processes
// left (the provider's own sandboxes, on each host where it has hosts, and this machine's temp folders).
import { reapDeadFolders } from "../common/index.ts";
import type { PackFile } from "./archive.ts";
import type { HostSweep, SandboxProvider, TrialSandbox } from "./provider.ts";

/** Copies files into `dir` of the sandbox: the provider's putFiles, else writeFile one by one. */
export async function putFiles(box: TrialSandbox, dir: string, files: readonly PackFile[]): Promise<void> {
  if (box.putFiles) return box.putFiles(dir, files);
  for (const f of files) await box.writeFile(`${dir}/${f.path}`, f.bytes, { mode: f.mode });
}

/** What a sweep removed: each host's part (the provider's), and this machine's temp folders. */
export interface Leftovers {
  hosts: HostSweep[];
  /** Temp folders (relay sockets, bootstrap root file systems, compiled verifiers) of processes that are gone. */
  folders: string[];
}

/**
 * Removes what kgate processes that are gone left behind: this machine's temp folders (first: they need
 * no provider), then the provider's sandboxes on each of its hosts (none without `reap`). Never
 * rejects for a host that does not answer: its entry has the error.
 */
export async function reapLeftovers(provider: SandboxProvider): Promise<Leftovers> {
  const folders = await reapDeadFolders();
  return { hosts: (await provider.reap?.()) ?? [], folders };
}

/** How many sandboxes a sweep removed, on every host. */
export function sandboxesRemoved(sweeps: readonly HostSweep[]): number {
  return sweeps.reduce((n, s) => n + s.removed.length, 0);
}
