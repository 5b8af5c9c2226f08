// The noop agent: does nothing at all. A control whose trials must fail verification.

import { ZERO_USAGE } from "../record/index.ts";
import { sha256 } from "../task/index.ts";
import type { Agent } from "./types.ts";

export function noopAgent(): Agent {
  return {
    name: "noop",
    harness: "noop",
    model: null,
    digest: sha256(JSON.stringify({ name: "noop", harness: "noop", version: 1 })),
    async run(ctx) {
      ctx.trajectory.append({ type: "note", text: "noop: did nothing" });
      return { stopReason: "finish", usage: ZERO_USAGE };
    },
  };
}
