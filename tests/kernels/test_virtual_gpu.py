"""The virtual GPU: a script's device checks answered as on a GPU, on a CPU-only machine.

If these fail, a tutorial's ``assert x.is_cuda`` or ``torch.cuda.get_device_capability()`` stops it
before its first launch when it is opened without a GPU, or torch's own code is lied to.
"""

from __future__ import annotations

import runpy
import textwrap

import pytest
import torch

from kernels.script.virtual_gpu import ENV_VAR, VIRTUAL_GPUS, chosen_gpu, virtual_gpu

SCRIPT = textwrap.dedent("""
    import torch
    x = torch.zeros(4)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); y = x + 1; end.record(); torch.cuda.synchronize()
    ANSWERS = dict(is_cuda=x.is_cuda, device=str(x.device), available=torch.cuda.is_available(),
                   capability=torch.cuda.get_device_capability(),
                   sms=torch.cuda.get_device_properties(0).multi_processor_count,
                   name=torch.cuda.get_device_name(), count=torch.cuda.device_count(),
                   elapsed=start.elapsed_time(end), y_device=str(y.device))
""")


class _ServedOnCpu(torch.overrides.TorchFunctionMode):
    """What cuda_on_cpu puts around a script: the virtual GPU answers only under such a mode."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _run(tmp_path, arch=None) -> dict:
    path = tmp_path / "checks.py"
    path.write_text(SCRIPT)
    with virtual_gpu(str(path), arch) as session, _ServedOnCpu():
        answers = runpy.run_path(str(path))["ANSWERS"]
        outside = torch.zeros(2)  # this test's own code is no part of the script
        answers["outside_is_cuda"], answers["outside_device"] = outside.is_cuda, str(outside.device)
        answers["asked"] = list(session.asked)
    return answers


def test_the_scripts_checks_see_the_default_h200(tmp_path):
    a = _run(tmp_path)
    assert a["is_cuda"] is True and a["device"] == "cuda:0" and a["available"] is True
    assert a["capability"] == (9, 0) and a["sms"] == 132 and a["count"] == 1
    assert "H200" in a["name"] and "virtual" in a["name"]
    assert a["elapsed"] >= 0.0  # host time between the two records: harmless, not a GPU's
    assert a["y_device"] == "cuda:0"  # the result of arithmetic is a (CPU) tensor the script sees as CUDA


def test_code_outside_the_script_sees_the_cpu(tmp_path):
    a = _run(tmp_path)
    assert a["outside_is_cuda"] is False and a["outside_device"] == "cpu"


def test_another_gpu_by_argument_and_by_environment(tmp_path, monkeypatch):
    assert _run(tmp_path, "sm_100")["capability"] == (10, 0)
    monkeypatch.setenv(ENV_VAR, "sm_80")
    assert chosen_gpu().arch == "sm_80" and _run(tmp_path)["sms"] == VIRTUAL_GPUS["sm_80"].multiprocessor_count
    with pytest.raises(ValueError, match="sm_75"):
        chosen_gpu("sm_75")


def test_what_the_script_asked_is_listed_with_its_line(tmp_path):
    asked = _run(tmp_path)["asked"]
    assert any(s.startswith("the GPU's capability at checks.py:") for s in asked), asked


def test_everything_is_put_back(tmp_path):
    _run(tmp_path)
    assert torch.zeros(1).is_cuda is False and str(torch.zeros(1).device) == "cpu"
    assert "is_cuda" not in torch.Tensor.__dict__ and "device" not in torch.Tensor.__dict__
    if not torch.backends.cuda.is_built():
        assert torch.cuda.is_available() is False
        with pytest.raises((AssertionError, RuntimeError)):
            torch.cuda.get_device_capability()


def test_tritons_cublas_binding_multiplies_on_the_cpu(tmp_path):
    path = tmp_path / "blas.py"
    path.write_text(textwrap.dedent("""
        import torch
        from triton._C.libtriton import nvidia
        blas = nvidia.cublas.CublasLt(torch.empty(1024, dtype=torch.uint8))
        a, b = torch.randn(8, 16, dtype=torch.float16), torch.randn(4, 16, dtype=torch.float16)
        c = torch.empty(8, 4, dtype=torch.float16)
        blas.matmul(a, b, c)
        OK = torch.allclose(c.float(), a.float() @ b.float().T, atol=1e-2)
    """))
    with virtual_gpu(str(path)):
        assert runpy.run_path(str(path))["OK"] is True
    from triton._C.libtriton import nvidia

    assert nvidia.cublas.CublasLt.__module__.startswith("triton")  # the real binding is back
