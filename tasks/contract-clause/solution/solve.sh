#!/usr/bin/env bash
# Oracle solution of contract-clause: runs in the sandbox work directory and writes output/contract_risk.csv.
set -euo pipefail
exec python3 "$KGATE_SOLUTION_DIR/solve.py"
