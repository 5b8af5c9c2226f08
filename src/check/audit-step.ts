// The leak-audit step of `kgate check`: the task's audit must report no error-level finding; its
// warnings (an artefact number no gated item declares, a bare look-alike) make the step a warning
// that names each by rule and place.
import { auditTask, type Finding } from "../audit/index.ts";
import { formatProblem } from "../task/index.ts";
import type { CheckStep } from "./types.ts";

const SHOWN = 5;

function place(f: Finding): string {
  const at = f.location.line === undefined ? "" : `:${f.location.line}:${f.location.column ?? 1}`;
  return `${f.rule} at ${f.file}${at}`;
}

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
    const warnings = audit.findings.filter((f) => f.severity === "warning" && !f.suppressed);
    if (warnings.length > 0) {
      const more = warnings.length > SHOWN ? ` and ${warnings.length - SHOWN} more` : "";
      return [
        {
          status: "warning",
          detail: `no leak (${tally}): ${warnings.slice(0, SHOWN).map(place).join(", ")}${more}; \`kgate audit ${audit.id}\` explains each`,
        },
      ];
    }
    return [{ status: "pass", detail: `no leak (${tally})` }];
  },
};
