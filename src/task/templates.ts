// Text templates for `kgate new`: a curator edits these instead of copying another task.
import type { OutputTemplate } from "./output-templates.ts";
import type { GateKind } from "./schema.ts";

export function instructionTemplate(gate: GateKind, output: OutputTemplate): string {
  const what =
    gate === "operator"
      ? "Compute <the quantity> for every <item> using the analysis operator defined by the established internal specification."
      : "Compute <the quantity> for every <item> according to the established internal specification.";
  return `# TODO: task title

${what}

The input data is in \`input.csv\` in your working directory.

${output.instruction}
values rounded as the established internal specification requires.

If the established internal specification is not available to you, state your assumptions and
apply the most common industry practice instead.
`;
}

/** The artefact (or its perturbed variant): the example convention sits in a marked section. */
/**
 * An operator gate's artefact states its operator as pseudocode (an indented block the audit's
 * code pass fingerprints) with each choice it makes in a marked section below.
 */
const OPERATOR_SECTION = `
The operator (TODO: the algorithm as short pseudocode: its passes, initialisation and update rule;
never the reading of the task's files or the writing of its output):

    for each item:
        value = quantity * (1 + rate)
`;

export function artefactTemplate(id: string, canary: string, gate: GateKind, perturbed = false): string {
  const heading = perturbed ? "Perturbed variant: the same shape, plausible but wrong values" : "Conventions";
  const rule = gate === "operator" ? "Operator" : "Convention";
  return `<!-- kgate-canary: ${canary} -->
# Internal specification: ${id}

TODO: condense the private knowledge this task needs into a kilobyte-scale reference:
conventions, reference tables and operators, never an end-to-end solution. Wrap each convention's
section in markers naming its key in the verifier's conventions (the probes cut the artefact by them).

## ${heading}
${gate === "operator" ? OPERATOR_SECTION : ""}
<!-- kgate:convention rate -->
- ${rule} 1: TODO (e.g. an overhead rate of ${perturbed ? "15" : "12"}% applied per level).
<!-- /kgate:convention -->
- ${rule} 2: TODO (e.g. a missing value counts as ${perturbed ? "the mean of its siblings" : "0.00"}).
- ${rule} 3: TODO (e.g. rounding to 2 decimals, half away from zero, at the end only).

Keep this file between 256 B and 16 KiB, and never name it in the instruction.
`;
}

/** The compressed variant: the same conventions in far fewer bytes (it must pass like the artefact). */
export function compressedTemplate(id: string, canary: string): string {
  return `<!-- kgate-canary: ${canary} -->
# ${id} (short)

<!-- kgate:convention rate -->
- TODO: every convention of the artefact in one line each, e.g. an overhead rate of 12% per level.
<!-- /kgate:convention -->
`;
}

/** The oracle reads its conventions from the placed artefact, so each variant yields its own answer. */
export function solutionTemplate(artefactPath: string, output: OutputTemplate): string {
  return `#!/usr/bin/env bash
# Oracle solution: runs inside the sandbox with the work directory as cwd, and writes the outputs.
# It reads the conventions from the specification placed at $KGATE_ARTEFACT_PATH
# (${artefactPath}: the artefact or a variant), never from a copy of one wording.
# Replace with an implementation independent of the TypeScript reference (e.g. Python).
set -euo pipefail
mkdir -p output
python3 - <<'PY'
import csv, os, re
spec = open(os.environ.get("KGATE_ARTEFACT_PATH", "${artefactPath}"), encoding="utf-8").read()
rate = int(re.search(r"rate of (\\d+)%", spec).group(1)) / 100
with open("input.csv") as f:
    rows = [(row["item"], int(row["quantity"]) * (1 + rate)) for row in csv.DictReader(f)]
${output.writer}
PY
`;
}

/** The data generator: writes every environment file into the folder it is given, deterministically. */
export function generatorTemplate(id: string): string {
  return `#!/usr/bin/env python3
# Generates the environment of ${id}, deterministically (seeded; never the clock or unseeded random).
# Usage: python3 tasks/${id}/generate.py [out_dir]   (default: environment/ beside this file)
# \`kgate check\` reruns it into a fresh folder: the output must equal environment/ byte for byte.
import sys
from pathlib import Path

ITEMS = [("widget", 3), ("gadget", 5)]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "environment"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "input.csv", "w", newline="\\n") as f:
        f.write("item,quantity\\n")
        for item, quantity in ITEMS:
            f.write(f"{item},{quantity}\\n")


if __name__ == "__main__":
    main()
`;
}

/**
 * The verifier module of a new task. `verifyImport` is the import specifier of kgate's verification
 * library as seen from verifiers/ (a relative path to src/verify/index.ts, wherever kgate lives).
 */
export function verifierTemplate(id: string, verifyImport: string, output: OutputTemplate): string {
  return `// Verifier for ${id}: the reference solver as a pure function of the environment and conventions.
// TODO: replace the example conventions and solver with the task's own. Comparison rules (tolerance,
// string normalisation, keyed rows) are declared in tasks/${id}/task.json outputs[].compare.
import { defineVerifier, environmentRows } from "${verifyImport}";

interface Conventions {
  /** Markup applied to every quantity. */
  rate: number;
}

interface Row {
  item: string;
  value: number;
}

export default defineVerifier<Conventions>({
  conventions: {
    /** What the artefact specifies. */
    artefact: { rate: 0.12 },
    /** What a competent agent without the artefact would plausibly assume. */
    default: { rate: 0 },
    /** One entry per variant declared in task.json (a compressed one states the artefact's conventions). */
    variants: { perturbed: { rate: 0.15 }, compressed: { rate: 0.12 } },
  },
  solve(files, c) {
    const rows: Row[] = environmentRows(files, "input.csv").map(({ item = "", quantity = "0" }) => ({
      item,
      value: Math.round(Number(quantity) * (1 + c.rate) * 100) / 100,
    }));
    return ${output.answer};
  },
  ${output.rubric ?? ""}
});
`;
}

/** The leak-audit file (schema: src/audit/schema.ts); it declares the template artefact's example rate. */
export function auditTemplate(schemaRef: string): string {
  const sizeNote = "the template's size note (256 B - 16 KiB), not a convention";
  const audit = {
    $schema: schemaRef,
    items: [
      {
        id: "overhead-rate",
        kind: "number",
        value: 0.12,
        context: ["overhead", "markup"],
        description:
          "TODO: the example convention; declare every gated constant, name, alias table and phrase",
      },
    ],
    ignoreNumbers: [
      { value: 256, reason: sizeNote },
      { value: 16, reason: sizeNote },
    ],
    allowlist: [],
  };
  return `${JSON.stringify(audit, null, 2)}\n`;
}
