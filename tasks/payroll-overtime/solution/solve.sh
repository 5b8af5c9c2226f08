#!/usr/bin/env bash
# Oracle solution of payroll-overtime: runs in the sandbox work directory and writes output/payroll.csv.
set -euo pipefail
exec python3 "$KGATE_SOLUTION_DIR/solve.py"
