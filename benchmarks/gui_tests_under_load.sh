#!/bin/bash
# The GUI tests (tests/views and the window files of tests/app) run N times in a row while two
# busy loops compete for the cores (issue #25: a suite green under load). Run from the checkout:
#     benchmarks/gui_tests_under_load.sh 10 /tmp/loadrun
# Each iteration's pytest output goes to OUT/iter-<i>.log, one summary line each to OUT/summary.txt.
set -u
N=${1:-10}
OUT=${2:-/tmp/tilescope-load}
mkdir -p "$OUT"
python3 -c 'while True: pass' & B1=$!
python3 -c 'while True: pass' & B2=$!
trap 'kill $B1 $B2 2>/dev/null' EXIT
FILES="tests/views $(grep -l 'PySide6\|real_window\|qtbot\|qapp' tests/app/test_*.py | grep -v test_worker_client.py | tr '\n' ' ')"
for i in $(seq 1 "$N"); do
  start=$(date +%s)
  QT_QPA_PLATFORM=offscreen timeout 5400 .venv/bin/python -m pytest -q -p no:cacheprovider $FILES > "$OUT/iter-$i.log" 2>&1
  rc=$?
  echo "iteration $i rc=$rc $(( $(date +%s) - start ))s $(grep -E '[0-9]+ (passed|failed)' "$OUT/iter-$i.log" | tail -1) head=$(git rev-parse --short HEAD)" >> "$OUT/summary.txt"
done
