// The leak-audit step of `kgate check`: the task's audit must report no error-level finding.
import { auditTask } from "../audit/index.ts";
import { formatProblem } from "../task/index.ts";
import type { CheckStep } from "./types.ts";

export const auditStep: CheckStep = {
  id: "leak-audit",
  needs: ["task"],
  async run(context) {
    const audit = await auditTask(context.paths, context.task!);
    const { error, warning, suppressed } = audit.counts;
    const tally = `${error} error(s), ${warning} warning(s), ${suppressed} suppressed`;
    if (audit.status === "invalid") {
      return [
        {
          status: "fail",
          detail: `the audit file is invalid: ${audit.problems.map(formatProblem).join("; ")}`,
        },
      ];
    }
    if (audit.status === "findings") {
      return [
        {
          status: "fail",
          detail: `leaks found (${tally}); run \`kgate audit ${audit.id}\` for the findings`,
        },
      ];
    }
    return [{ status: "pass", detail: `no leak (${tally})` }];
  },
};
