// Checks whose machinery lives on another branch. Each reports `unavailable` until its module
// lands; wiring one in replaces only its run():
//   leak-audit: src/audit auditTask(paths, task) must report no error-level finding.
import type { CheckStep } from "./types.ts";

export const auditStep: CheckStep = {
  id: "leak-audit",
  needs: ["task"],
  async run() {
    return [
      { status: "unavailable", detail: "not available yet: the leak audit (src/audit) has not landed" },
    ];
  },
};
