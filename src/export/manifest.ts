// tests/manifest.json of an exported task: what produced it (task, condition, digests, kgate version)
// and the environment data the bundled verifier solves from. Read back by the verifier and by tests.
import { z } from "zod";

const EXPORT_LAYOUTS = ["harbor", "harbor-training", "benchflow", "benchflow-split"] as const;

export const ExportManifestSchema = z.object({
  layout: z.enum(EXPORT_LAYOUTS),
  kgateVersion: z.string(),
  task: z.string(),
  condition: z.string(),
  digests: z.object({
    /** The kgate task digest (task.json, instruction, environment, solution, verifier, audit). */
    task: z.string(),
    instruction: z.string(),
    /** File-set digest of what the condition places in the work directory. */
    fileSet: z.string(),
    /** sha256 of the artefact or variant placed; null under -A. */
    artefact: z.string().nullable(),
  }),
  /** The export canary (training exports; absent in others). */
  canary: z.string().optional(),
  /** The -A file set, shipped in tests/environment/ for the reference solver. */
  environment: z.array(z.object({ path: z.string(), size: z.number(), sha256: z.string() })),
});

export type ExportManifest = z.infer<typeof ExportManifestSchema>;
