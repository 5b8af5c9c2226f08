// task.toml of an exported task, in Harbor's schema (TaskConfig, schema_version 1.1): timeouts,
// resources, network off, and metadata naming the kgate task, condition, digests and kgate version.
import { stringify } from "smol-toml";
import type { LoadedTask } from "../task/index.ts";
import { canaryLine } from "./canary.ts";
import type { ExportManifest } from "./manifest.ts";

/** Harbor's TaskConfig schema version this export follows (see docs/export.md for the source). */
const HARBOR_SCHEMA_VERSION = "1.1";
/** The verifier (node on a few MB of CSV/JSON) needs seconds; this leaves room on a loaded machine. */
export const VERIFIER_TIMEOUT_SEC = 300;
/** Harbor's default storage, stated so the file says every resource it asks for. */
const STORAGE_MB = 10240;
const BUILD_TIMEOUT_SEC = 900;

/** The task config both layouts carry (Harbor's TaskConfig fields; BenchFlow names `environment` `sandbox`). */
export function taskConfig(task: LoadedTask, manifest: ExportManifest, name: string) {
  const spec = task.spec;
  return {
    schema_version: HARBOR_SCHEMA_VERSION,
    task: {
      name: `kgate/${name}`,
      description: `${spec.title} (kgate task ${task.id}, condition ${manifest.condition})`,
      keywords: ["kgate", "knowledge-gated", spec.gate, manifest.condition],
    },
    metadata: {
      kgate_task: task.id,
      kgate_condition: manifest.condition,
      kgate_layout: manifest.layout,
      kgate_version: manifest.kgateVersion,
      gate: spec.gate,
      domain: spec.domain,
      title: spec.title,
      task_sha256: manifest.digests.task,
      instruction_sha256: manifest.digests.instruction,
      file_set_sha256: manifest.digests.fileSet,
      artefact_sha256: manifest.digests.artefact ?? "none",
      ...(manifest.canary === undefined ? {} : { canary: manifest.canary }),
    },
    agent: { timeout_sec: spec.limits.timeoutSec },
    verifier: { timeout_sec: VERIFIER_TIMEOUT_SEC },
    environment: {
      build_timeout_sec: BUILD_TIMEOUT_SEC,
      cpus: Math.max(1, Math.ceil(spec.limits.cpus)),
      memory_mb: spec.limits.memoryMb,
      storage_mb: STORAGE_MB,
      allow_internet: spec.network,
      network_mode: spec.network ? "public" : "no-network",
    },
  };
}

export function taskToml(task: LoadedTask, manifest: ExportManifest, name: string): string {
  const config = taskConfig(task, manifest, name);
  const canary = manifest.canary === undefined ? "" : `# ${canaryLine(manifest.canary)}\n`;
  return `# Exported by kgate ${manifest.kgateVersion} from task ${task.id} under ${manifest.condition}.\n${canary}${stringify(config)}\n`;
}
