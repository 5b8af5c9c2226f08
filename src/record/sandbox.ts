// What a trial asks of its sandbox beyond the task's limits: a derived image, env, writable folders.
import { z } from "zod";

export const SandboxRequirements = z.object({
  /** A derived image (e.g. with a CLI harness installed). */
  image: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  /**
   * Extra writable folders (each a tmpfs volume of the task's diskMb seeded from the image, removed
   * with the container); the root filesystem is read-only, /home/agent (likewise) and /tmp are writable.
   */
  writable: z.array(z.string()).optional(),
});
export type SandboxRequirements = z.infer<typeof SandboxRequirements>;
