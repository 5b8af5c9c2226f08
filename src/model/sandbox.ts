// What a trial asks of its sandbox beyond the task's limits: a derived image, env, writable folders.
import { z } from "zod";

export const SandboxRequirements = z.object({
  /** A derived image (e.g. with a CLI harness installed). */
  image: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  /**
   * Extra writable folders (anonymous volumes seeded from the image, removed with the container);
   * the root filesystem is read-only, and /home/agent (with the work directory) and /tmp are writable.
   */
  writable: z.array(z.string()).optional(),
});
export type SandboxRequirements = z.infer<typeof SandboxRequirements>;
