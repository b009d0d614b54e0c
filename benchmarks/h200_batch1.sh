#!/usr/bin/env bash
# Run from the repository root on the GPU host with the tutorials copied into the git-ignored
# .devcarry/tutorials/ (Triton's files, not ours) and .devcarry carried: bash benchmarks/h200_batch1.sh
# One batch of GPU checks (H200): engine + plain-script GPU tests, the four tutorials as they are,
# compile facts CPU-vs-GPU, the sweep vs triton.autotune comparison.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"
echo "== pytest tests/gpu (engine, plain scripts)"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_engine.py tests/gpu/test_gpu_plain_scripts.py 2>&1 | tail -15
for t in 01-vector-add 02-fused-softmax 03-matrix-multiplication 05-layer-norm; do
  f=.devcarry/tutorials/$t.py
  echo "== $t: open (GPU)"
  timeout 120 python3 -m app open $f -b gpu --budget 60 2>&1 | grep -v "^       \|^   out\|^    " | head -30
  echo "== $t: run launch 1 as captured"
  timeout 60 python3 -m app run --file $f -b gpu --no-torch 2>&1 | grep -E "^(kernel|values|grid|correctness|timing|metrics|compile|occupancy)|error" 
done
declare -A CHANGED=([01-vector-add]="-p BLOCK_SIZE=256 --num-warps 8" [02-fused-softmax]="-p BLOCK_SIZE=2048 --num-warps 4" [03-matrix-multiplication]="-p BLOCK_SIZE_M=64 --num-warps 4" [05-layer-norm]="-p BLOCK_SIZE=4096 --num-warps 4")
for t in 01-vector-add 02-fused-softmax 03-matrix-multiplication 05-layer-norm; do
  f=.devcarry/tutorials/$t.py
  echo "== $t: re-run with ${CHANGED[$t]}"
  timeout 60 python3 -m app run --file $f -b gpu --no-torch ${CHANGED[$t]} 2>&1 | grep -E "^(kernel|values|grid|correctness|timing|metrics)|error"
  echo "== $t: trace (interpreter, first 16 programs)"
  timeout 60 python3 -m app trace --file $f --window 0:16 2>&1 | head -4
done
echo "== compile facts: CPU path vs the real GPU compile"
timeout 200 python3 benchmarks/gpu_compile_facts_check.py --json $OUT/compile_facts.json 2>&1 | tail -25
echo "== sweep vs triton.autotune"
timeout 300 python3 benchmarks/gpu_sweep_check.py --out $OUT 2>&1 | tail -40
