// Checks whose machinery lives on other branches. Each is one step here, reporting `unavailable`
// until its module lands; wiring one in replaces only its run():
//   oracle, noop: src/trial runTrial with the oracle agent under +A (must pass) and the noop agent
//                 under -A (must fail), in the real sandbox;
//   leak-audit:   src/audit auditTask(paths, task) must report no error-level finding.
import type { CheckStep } from "./types.ts";

const pending = (id: string, what: string): CheckStep => ({
  id,
  needs: ["task", "verifier"],
  async run() {
    return [{ status: "unavailable", detail: `not available yet: ${what}` }];
  },
});

export const oracleStep = pending("oracle", "the sandbox trial runner (src/trial) has not landed");
export const noopStep = pending("noop", "the sandbox trial runner (src/trial) has not landed");
export const auditStep = pending("leak-audit", "the leak audit (src/audit) has not landed");
