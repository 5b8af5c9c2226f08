#!/usr/bin/env bash
# Oracle solution of airline-booking: runs in the sandbox work directory and writes output/itinerary_prices.csv.
set -euo pipefail
exec python3 "$KGATE_SOLUTION_DIR/solve.py"
