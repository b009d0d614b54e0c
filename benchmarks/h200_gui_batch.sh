#!/usr/bin/env bash
# The real window on the H200 (second run of ../shared/tools/h200-gui's recipe: source its
# install.sh first, which installs PySide6 and sets QT_QPA_PLATFORM=offscreen). One batch, the
# most needed first, each step bounded: click → plotted point (issue #16), GPU traces and the
# timeline in the window (#12), the sweep against triton.autotune (#13), the new GPU tests.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import triton, torch, PySide6; print('triton', triton.__version__, 'torch', torch.__version__, 'PySide6', PySide6.__version__)"
echo "== click -> plotted point, real window, GPU (with compile ahead, and the window grabbed per kernel)"
mkdir -p $OUT/live_shots
timeout ${LIVE_S:-150} python3 benchmarks/bench_live_gpu.py --backend gpu --timeout 60 --out $OUT/live_gpu.json \
    --shots $OUT/live_shots 2>&1 | tail -70
echo "== GPU trace + timeline in the window"
mkdir -p $OUT/shots
timeout ${SHOTS_S:-60} python3 benchmarks/gpu_window_shots.py --out $OUT/shots --timeout 60 2>&1 | tail -30
echo "== sweep vs triton.autotune"
timeout ${SWEEP_S:-60} python3 benchmarks/gpu_sweep_check.py --skip-5axis --out $OUT 2>&1 | tail -40
echo "== GPU tests (window worker, trace serve)"
timeout ${TESTS_S:-40} python3 -m pytest -q -p no:cacheprovider -x tests/gpu/test_gpu_window_worker.py 2>&1 | tail -8
