// Named context sets in audits/<id>.json: items share one keyword list by its name; a name that no
// set declares is an error naming the file and the field.
import { describe, expect, it } from "vitest";
import { auditTaskById } from "../src/audit/index.ts";
import { formatProblem } from "../src/task/index.ts";
import { writeAuditTask } from "./support/audit-task.ts";
import { tempProject } from "./support/project.ts";

describe("audit contextSets", () => {
  it("rejects an item whose context names no declared set, naming file and field", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "case", {
      audit: {
        contextSets: { fees: ["handling", "fee"] },
        items: [{ id: "handling-rate", kind: "number", value: 0.035, context: "levies" }],
      },
    });
    const result = await auditTaskById(paths, "case");
    expect(result.status).toBe("invalid");
    expect(result.problems.map(formatProblem)).toEqual([
      'audits/case.json: items[0].context: no context set "levies" in contextSets (declared: fees)',
    ]);
  });

  it("gives two items the same keywords through one set", async () => {
    const paths = tempProject();
    writeAuditTask(paths, "case", {
      instruction: "# Fees\n\nThe handling levy is 0.035 of the value; the fee floor is 4.2 per parcel.\n",
      audit: {
        contextSets: { fees: ["levy", "fee"] },
        items: [
          { id: "handling-rate", kind: "number", value: 0.035, context: "fees" },
          { id: "fee-floor", kind: "number", value: 4.2, context: "fees" },
        ],
      },
    });
    const result = await auditTaskById(paths, "case");
    const errors = result.findings.filter((f) => f.severity === "error" && f.file.endsWith("instruction.md"));
    expect(errors.map((f) => f.item).sort()).toEqual(["fee-floor", "handling-rate"]);
  });
});
