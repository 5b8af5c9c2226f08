#!/usr/bin/env bash
# Oracle solution of legal-clause: runs in the sandbox work directory and writes output/clause_risk.json.
set -euo pipefail
exec python3 "$KGATE_SOLUTION_DIR/solve.py"
