#!/bin/bash
# Round 3's one device call on the H200 (the session had ~5 minutes of device time): each check in
# turn, the timing-sensitive ones alone on the GPU, each under its own hard limit; what each prints
# goes to $OUT/<name>.log and its JSON beside it. Run from the repo root on the device:
#     bash benchmarks/h200_batch_round3.sh
set -u
export PYTHONPATH=.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv;
  python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } > "$OUT/versions.txt" 2>&1
step() {  # name, limit_s, command...
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s.%N)
  timeout -k 3 "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc=$? $(python3 -c "print(round($(date +%s.%N)-$t0,1))")s" | tee -a "$OUT/steps.txt"
}
step advisor 92 python3 benchmarks/advisor_device.py --out "$OUT/advisor.jsonl" --limit 84
step first_sweep 48 python3 benchmarks/first_sweep_gpu.py --out "$OUT"
step trace 44 python3 benchmarks/gpu_trace_window_side.py --out "$OUT"
step tutorials 62 python3 benchmarks/h200_tutorials_08_10.py --tutorials .devcarry/tutorials --limit 55
