// The two shell scripts of an exported task: solution/solve.sh (kgate's oracle, as Harbor's oracle
// agent runs it; oracle/solve.sh in BenchFlow's native layout) and tests/test.sh (kgate's verifier,
// writing /logs/verifier/reward.txt and reward.json; verifier/test.sh natively).
import { WORKDIR } from "./dockerfile.ts";

/** Folder of solution/ holding the task's own solution files (its solve.sh may clash with Harbor's). */
export const SOLUTION_FILES = "kgate";

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The oracle as kgate's oracle agent runs it: in the work directory, with KGATE_SOLUTION_DIR (the
 * task's solution files, beside this script) and KGATE_ARTEFACT_PATH (task.json artefact.path,
 * relative to the work directory: the artefact or a variant there, nothing under -A) set.
 */
export function solveScript(task: string, command: string, artefactPath: string): string {
  return `#!/bin/bash
# kgate export: the oracle of task ${task}; runs solution.command of task.json in the work directory
# with $KGATE_SOLUTION_DIR and $KGATE_ARTEFACT_PATH set, as kgate's oracle agent does.
set -euo pipefail
export KGATE_SOLUTION_DIR="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)/${SOLUTION_FILES}"
export KGATE_ARTEFACT_PATH=${singleQuoted(artefactPath)}
cd ${WORKDIR}
exec bash -c ${singleQuoted(command)}
`;
}

export function testScript(task: string): string {
  return `#!/bin/bash
# kgate export: verifies the outputs of task ${task} with kgate's bundled verifier (node) and writes
# the reward (1 pass, 0 fail) to reward.txt and reward.json. A reward file left by the agent is
# removed first; a verifier that cannot run leaves reward 0.
set -u
TESTS_DIR="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
LOG_DIR=/logs/verifier
mkdir -p "$LOG_DIR"
rm -f "$LOG_DIR/reward.txt" "$LOG_DIR/reward.json" "$LOG_DIR/verdict.json"
node "$TESTS_DIR/verify.mjs" ${WORKDIR} "$LOG_DIR"
status=$?
if [ ! -s "$LOG_DIR/reward.txt" ] || [ ! -s "$LOG_DIR/reward.json" ]; then
  echo 0 > "$LOG_DIR/reward.txt"
  echo '{"reward": 0}' > "$LOG_DIR/reward.json"
fi
exit "$status"
`;
}
