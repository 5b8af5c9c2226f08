// Method rules on a task's texts: the artefact stays kilobyte-scale and the instruction never names it.
import path from "node:path";
import type { Problem } from "./problems.ts";

export const ARTEFACT_MIN_BYTES = 256;
export const ARTEFACT_MAX_BYTES = 16 * 1024;

export interface SizeRuleInput {
  instruction: string;
  instructionFile: string;
  artefactFile: string;
  artefactSize: number;
  /** Where the artefact is placed in the sandbox (task.json artefact.path). */
  artefactPath: string;
}

export function checkSizeRules(input: SizeRuleInput): Problem[] {
  const problems: Problem[] = [];
  if (input.artefactSize < ARTEFACT_MIN_BYTES || input.artefactSize > ARTEFACT_MAX_BYTES) {
    problems.push({
      severity: "warning",
      file: input.artefactFile,
      message: `artefact is ${input.artefactSize} B, outside the kilobyte scale the method wants (${ARTEFACT_MIN_BYTES} B - ${ARTEFACT_MAX_BYTES / 1024} KiB)`,
    });
  }
  const names = new Set([input.artefactPath, path.posix.basename(input.artefactPath), "artefact.md"]);
  const lines = input.instruction.split("\n");
  for (const name of names) {
    const needle = name.toLowerCase();
    const index = lines.findIndex((line) => line.toLowerCase().includes(needle));
    if (index >= 0) {
      problems.push({
        severity: "error",
        file: input.instructionFile,
        field: `line ${index + 1}`,
        message: `the instruction mentions the artefact's file name or path "${name}"; refer to "the established internal specification" instead`,
      });
    }
  }
  return problems;
}
