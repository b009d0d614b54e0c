"""The kernel's C launcher built beside its compile (issue #12, Triton 3.6: gcc at the first
launch, about 0.3 s of a cold GPU trace): the launcher built ahead is the one the launch loads.
Skips without CUDA; on a Triton whose launcher is generic there is nothing to build."""

from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


@triton.jit
def _scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * factor, mask=offs < n)


def _launchers(cache) -> set[str]:
    return {p.parent.name for p in cache.rglob("__triton_launcher*.so")}


def test_the_launcher_built_ahead_is_the_one_the_launch_loads(tmp_path, monkeypatch):
    # breaks if the launcher built ahead differs from the launch's (the launch then builds a
    # second one: no time saved)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    from kernels.compile.target import launcher_builder

    x = torch.randn(1000, device="cuda")
    out = torch.empty_like(x)
    args, kwargs = (x, out, x.numel(), 2.0), {"BLOCK": 256}
    build = launcher_builder(_scale, args, kwargs)
    if build is None:
        pytest.skip(f"Triton {triton.__version__} builds no launcher per signature")
    build()
    ahead = _launchers(tmp_path)
    assert len(ahead) == 1
    _scale[(4,)](*args, **kwargs)
    torch.cuda.synchronize()
    assert _launchers(tmp_path) == ahead and torch.allclose(out, 2 * x)
