"""The export texts of a tune sweep, compiled and run: the ``@triton.autotune`` decorator on the
spec's kernel and the ``torch.library.triton_op`` module, on the interpreter, against torch."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from kernels import engine
from kernels.data.results import SweepRequest, SweepResult
from kernels.tune import export

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def add_sweep() -> SweepResult:
    res = engine.sweep(SweepRequest("vector_add", {"N": 300}, {"BLOCK_SIZE": [32, 64, 128]}, backend="interpreter",
                                    mode="tune", torch_baseline=False, remeasure_rounds=2))
    assert res.error is None and res.best is not None
    return res


@pytest.fixture(scope="module")
def mm_sweep() -> SweepResult:
    res = engine.sweep(SweepRequest("matmul", {"M": 32, "N": 48, "K": 32, "dtype": "fp32"},
                                    {"BLOCK_M": [16, 32], "BLOCK_N": [16]}, backend="interpreter", mode="tune",
                                    torch_baseline=False, remeasure_rounds=2))
    assert res.error is None and res.best is not None
    return res


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_autotune_text_lists_the_top_configs_fastest_first(mm_sweep):
    text = mm_sweep.exports["autotune"]
    compile(text + "def f(): pass\n", "<autotune>", "exec")  # a decorator over a function: valid Python
    assert text.splitlines()[0].startswith("# matmul: the 2 fastest configs")
    assert "# it still passes EVEN_K, TF32" in text and "key=['M', 'N', 'K']" in text
    configs = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("triton.Config(")]
    win = mm_sweep.points[mm_sweep.best].values
    assert len(configs) == 2 and configs[0].startswith(
        f"triton.Config({{'BLOCK_M': {win['BLOCK_M']}, 'BLOCK_N': 16, 'BLOCK_K': 32, 'GROUP_SIZE_M': 8}}, "
        "num_warps=4, num_stages=3),")
    assert export.top_configs(engine.get_spec("matmul"), mm_sweep)[0] == mm_sweep.best


def test_triton_op_module_runs_in_process_and_matches_torch(mm_sweep, add_sweep, tmp_path):
    spec = engine.get_spec("matmul")
    path = tmp_path / "tuned_mm.py"
    path.write_text(export.triton_op_text(spec, mm_sweep, op_name="tilescope_test::matmul"))
    mod = _load(path, "tuned_mm")
    assert mod.CONFIG["BLOCK_M"] == mm_sweep.points[mm_sweep.best].values["BLOCK_M"]
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(40, 24, generator=g), torch.randn(24, 56, generator=g)  # not the swept shapes
    c = mod.matmul(a, b)
    torch.testing.assert_close(c, a @ b, atol=1e-4, rtol=1e-4)
    c16 = torch.ops.tilescope_test.matmul(a.half(), b.half())  # through the registered op
    assert c16.dtype == torch.float16
    torch.testing.assert_close(c16.float(), a.half().float() @ b.half().float(), atol=2e-2, rtol=2e-2)
    # the out-variant: the caller allocates, the op writes in place
    add = engine.get_spec("vector_add")
    path2 = tmp_path / "tuned_add.py"
    path2.write_text(export.triton_op_text(add, add_sweep, op_name="tilescope_test::add_out", functional=False))
    mod2 = _load(path2, "tuned_add")
    x, y, out = torch.randn(777), torch.randn(777), torch.full((777,), float("nan"))
    assert mod2.vector_add(x, y, out) is None
    torch.testing.assert_close(out, x + y)


def test_exports_run_as_written_under_triton_interpret(add_sweep, mm_sweep, tmp_path):
    """In a fresh process with TRITON_INTERPRET=1: the decorator over the catalog kernel's own
    source (a wall-clock do_bench: the autotuner's default needs a GPU), and the module as a
    script, checking itself against the spec's reference."""
    (tmp_path / "autotune.txt").write_text(add_sweep.exports["autotune"])
    (tmp_path / "tuned_mm.py").write_text(mm_sweep.exports["triton_op"])
    driver = tmp_path / "driver.py"
    driver.write_text(textwrap.dedent(f"""
        import functools, inspect, runpy, sys, time, types
        import torch, triton, triton.language as tl
        from kernels.catalog.elementwise import binary_kernel

        def wall(fn, quantiles=None, **kw):
            t0 = time.perf_counter(); fn(); return (time.perf_counter() - t0) * 1e3

        shim = types.SimpleNamespace(autotune=functools.partial(triton.autotune, do_bench=wall),
                                     Config=triton.Config, jit=triton.jit)
        ns = {{"triton": shim, "tl": tl}}
        exec(open({str(tmp_path / "autotune.txt")!r}).read() + inspect.getsource(binary_kernel.fn), ns)
        tuned = ns["binary_kernel"]
        x, y = torch.randn(1000), torch.randn(1000)
        out = torch.empty(1000)
        tuned[lambda meta: (triton.cdiv(1000, meta["BLOCK_SIZE"]),)](x, y, out, 1000, IS_MUL=False)
        assert torch.allclose(out, x + y), "autotuned kernel"
        print("autotune ok", len(tuned.configs), tuned.best_config.kwargs)
        sys.argv = ["tuned_mm.py", "M=40", "N=24", "K=72"]
        runpy.run_path({str(tmp_path / "tuned_mm.py")!r}, run_name="__main__")
    """))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, str(driver)], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=240)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.strip().splitlines()
    assert lines[0].startswith("autotune ok 3 {'BLOCK_SIZE': ")
    assert lines[-1].startswith("ok: matmul matches the reference on cpu at ") and "M=40, N=24, K=72" in lines[-1]


def test_no_passing_point_means_no_exports():
    res = engine.sweep(SweepRequest("vector_add", {"N": 300}, {"BLOCK_SIZE": [100, 300]}, backend="interpreter",
                                    mode="tune", torch_baseline=False))
    assert res.best is None and res.exports == {} and all(p.result.error for p in res.points)
    with pytest.raises(ValueError, match="nothing to export"):
        export.autotune_text(engine.get_spec("vector_add"), res)
