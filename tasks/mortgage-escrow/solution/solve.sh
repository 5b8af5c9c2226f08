#!/usr/bin/env bash
# Oracle solution of mortgage-escrow: runs in the sandbox work directory and writes output/escrow_analysis.csv.
set -euo pipefail
exec python3 "$KGATE_SOLUTION_DIR/solve.py"
