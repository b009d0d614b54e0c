#!/usr/bin/env bash
# Run from the repository root on the GPU host with the tutorials copied into the git-ignored
# .devcarry/tutorials/ (Triton's files, not ours) and .devcarry carried: bash benchmarks/h200_batch1.sh
# Final GPU check of this round: GPU tests and the four tutorials, with the final capture code.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"
echo "== pytest tests/gpu"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu 2>&1 | tail -6
declare -A CHANGED=([01-vector-add]="-p BLOCK_SIZE=256 --num-warps 8" [02-fused-softmax]="-p BLOCK_SIZE=2048 --num-warps 4" [03-matrix-multiplication]="-p BLOCK_SIZE_M=64 --num-warps 4" [05-layer-norm]="-p BLOCK_SIZE=4096 --num-warps 4")
for t in 01-vector-add 02-fused-softmax 03-matrix-multiplication 05-layer-norm; do
  f=.devcarry/tutorials/$t.py
  echo "== $t"
  timeout 90 python3 -m app open $f -b gpu --budget 60 2>&1 | grep -E "captured|stopped|raised|^[0-9]+\. |grid "
  timeout 60 python3 -m app run --file $f -b gpu --no-torch 2>&1 | grep -E "^(values|grid|correctness|timing)|error"
  timeout 60 python3 -m app run --file $f -b gpu --no-torch ${CHANGED[$t]} 2>&1 | grep -E "^(values|grid|correctness|timing)|error"
done
