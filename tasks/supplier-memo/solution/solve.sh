#!/usr/bin/env bash
# Oracle solution of supplier-memo: runs in the sandbox work directory and writes output/recommendation.md.
set -euo pipefail
exec python3 "$KGATE_SOLUTION_DIR/solve.py"
