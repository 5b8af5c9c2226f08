// task.toml of a training export (`kgate export harbor --for-training`), in Harbor's TaskConfig schema
// 1.4 (what NeMo Gym's mirror and verifiers' HarborTaskset read; docs/export.md): the agent's image
// and the verifier's as pullable references pinned by digest (cloud sandboxes cannot build
// `FROM ${BASE}`), the verifier in its own environment (`environment_mode = "separate"`) with the
// declared outputs as artifacts, so no agent process can touch grading, and [metadata] with the
// calibration, the digests, the canary and how the artefact is delivered.
import { stringify } from "smol-toml";
import type { LoadedTask } from "../../task/index.ts";
import type { TaskCalibration } from "../calibration.ts";
import { canaryLine } from "../canary.ts";
import { WORKDIR } from "../dockerfile.ts";
import type { ExportManifest } from "../manifest.ts";
import { taskConfig, VERIFIER_TIMEOUT_SEC } from "../task-toml.ts";

/** Harbor's TaskConfig schema version this export follows (see docs/export.md for the sources). */
const HARBOR_TRAINING_SCHEMA_VERSION = "1.4";

export interface TrainingFacts {
  /** Pullable references pinned by digest (`<registry>/<repo>@sha256:...`); null before the push. */
  images: { agent: string; verifier: string } | null;
  calibration: (TaskCalibration & { run: string }) | null;
  canary: string;
  /** sha256 of tests/verify.mjs and tests/verifier.mjs (kgate's verification and the task's verifier). */
  verifierSha256: string;
}

function calibrationTable(c: TrainingFacts["calibration"]) {
  if (!c) return { run: "none" };
  return {
    run: c.run,
    decision: c.decision,
    borderline: c.borderline,
    cells: c.cells.map((cell) => ({
      cell: cell.cell,
      agent: cell.agent,
      condition: cell.condition,
      passes: cell.passes,
      runs: cell.runs,
      wilson_lo: cell.lo,
      wilson_hi: cell.hi,
    })),
  };
}

function trainingConfig(task: LoadedTask, manifest: ExportManifest, name: string, facts: TrainingFacts) {
  const { schema_version: _, environment, metadata, verifier, ...rest } = taskConfig(task, manifest, name);
  const { allow_internet: __, ...resources } = environment;
  const pinned = (ref: string | undefined) => (ref === undefined ? {} : { docker_image: ref });
  return {
    schema_version: HARBOR_TRAINING_SCHEMA_VERSION,
    artifacts: task.spec.outputs.map((o) => `${WORKDIR}/${o.path}`),
    ...rest,
    metadata: {
      ...metadata,
      verifier_sha256: facts.verifierSha256,
      artefact_delivery: manifest.digests.artefact === null ? "none" : "file",
      artefact_path: task.spec.artefact.path,
      canary: facts.canary,
      canary_note: canaryLine(facts.canary),
      calibration: calibrationTable(facts.calibration),
    },
    verifier: {
      ...verifier,
      timeout_sec: VERIFIER_TIMEOUT_SEC,
      environment_mode: "separate",
      environment: { ...pinned(facts.images?.verifier), ...resources, network_mode: "no-network" },
    },
    environment: { ...pinned(facts.images?.agent), ...resources },
  };
}

export function trainingToml(
  task: LoadedTask,
  manifest: ExportManifest,
  name: string,
  facts: TrainingFacts,
): string {
  const header = `# Exported by kgate ${manifest.kgateVersion} for training from task ${task.id} under ${manifest.condition}.\n# ${canaryLine(facts.canary)}\n`;
  return `${header}${stringify(trainingConfig(task, manifest, name, facts))}\n`;
}
