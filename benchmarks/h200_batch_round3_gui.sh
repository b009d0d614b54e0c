#!/bin/bash
# Round 3's second device call on the H200: the real window (PySide6 installed by the third run of
# ../shared/tools/h200-gui's recipe, sourced before this), then the Gluon tutorials. Each step under
# its own hard limit; logs and JSON in $OUT. From the repo root on the device:
#     source .h200gui/b/install.sh && bash benchmarks/h200_batch_round3_gui.sh
set -u
export PYTHONPATH=. PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import triton, torch, PySide6; print('triton', triton.__version__, 'torch', torch.__version__, 'PySide6', PySide6.__version__)"; } > "$OUT/versions.txt" 2>&1
step() {  # name, limit_s, command...
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s.%N)
  timeout -k 3 "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc=$? $(python3 -c "print(round($(date +%s.%N)-$t0,1))")s" | tee -a "$OUT/versions.txt"
}
mkdir -p /tmp/w3 && step window 155 python3 benchmarks/h200_window_round3.py --out /tmp/w3 --limit 150
cp /tmp/w3/window_round3.json /tmp/w3/window_round3.tar "$OUT"/ 2>/dev/null  # the PNGs travel in the tar (a call returns ~8 files)
step gluon 60 python3 benchmarks/h200_gluon_tutorials.py --out "$OUT"
