"""User kernel files: every way loading goes wrong gives one clear message; reload replaces."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from kernels import engine
from kernels.data.errors import UserFileError
from kernels.data.results import RunRequest
from kernels.sources import userfile
from kernels.specs.spec import REGISTRY

# a complete user kernel: a helper @triton.jit function called from the kernel (which only runs
# under the interpreter when the engine swaps the helper for its interpreted twin)
GOOD = '''
import torch
import triton
import triton.language as tl

from kernels.data.params import block, dtype_param, num_stages, num_warps, shape
from kernels.specs.spec import KernelSpec, register


@triton.jit
def scale(x, factor):
    return x * factor


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, scale(tl.load(x_ptr + offs, mask=mask), FACTOR) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


FACTOR = 2.0


def make_inputs(cfg, device, gen):
    n = cfg["N"]
    x = torch.randn(n, generator=gen).to(device)
    y = torch.randn(n, generator=gen).to(device)
    return {"x": x, "y": y, "out": torch.empty(n, device=device)}


def launch(K, t, cfg):
    grid = (triton.cdiv(cfg["N"], cfg["BLOCK_SIZE"]),)
    cfg["_grid"] = grid
    return K(axpy_kernel)[grid](t["x"], t["y"], t["out"], cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"])


register(KernelSpec(
    name="NAME", title="axpy", summary="out = FACTOR * x + y", kernels=(axpy_kernel,),
    params=(block("BLOCK_SIZE", 128), num_warps(4), num_stages(3), shape("N", 1000), dtype_param(("fp32",))),
    make_inputs=make_inputs, launch=launch,
    reference=lambda t, cfg: {"out": FACTOR * t["x"].double() + t["y"].double()},
    outputs=("out",), bytes_moved=lambda cfg: 12 * cfg["N"], flops=lambda cfg: 2 * cfg["N"],
))
'''


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def cleanup():
    paths: list[Path] = []
    yield paths
    for p in paths:
        userfile.unload(p)


def test_load_registers_with_origin_and_runs_with_a_helper(tmp_path, cleanup):
    f = write(tmp_path / "axpy.py", GOOD.replace("NAME", "user_axpy"))
    cleanup.append(f)
    specs = userfile.load(f)
    assert [s.name for s in specs] == ["user_axpy"]
    assert specs[0].origin == str(f.resolve()) and REGISTRY.get("user_axpy") is specs[0]
    assert {i.name: i.origin for i in engine.infos()}["user_axpy"] == str(f.resolve())
    r = engine.run(RunRequest("user_axpy", {"N": 1000}, backend="interpreter", user_file=str(f)))
    assert r.error is None and r.check.passed and r.grid == (8,)


def test_reload_replaces_the_files_specs(tmp_path, cleanup):
    f = write(tmp_path / "k.py", GOOD.replace("NAME", "user_v1"))
    cleanup.append(f)
    userfile.load(f)
    write(f, GOOD.replace("NAME", "user_v2").replace("FACTOR = 2.0", "FACTOR = 3.0"))
    os.utime(f, ns=(1, 1))  # a different mtime even within the filesystem's clock tick
    specs = userfile.ensure_loaded(f)
    assert [s.name for s in specs] == ["user_v2"] and "user_v1" not in REGISTRY
    r = engine.run(RunRequest("user_v2", {"N": 64}, backend="interpreter", user_file=str(f)))
    assert r.check.passed  # the edited FACTOR (3.0) is what ran and what the reference used


def test_missing_file():
    with pytest.raises(UserFileError, match=r"kernel file not found: /no/such/kernels\.py"):
        userfile.load("/no/such/kernels.py")
    r = engine.run(RunRequest("vector_add", user_file="/no/such/kernels.py"))
    assert r.error.kind == "user_file" and "not found" in r.error.message


def test_syntax_error_names_the_line(tmp_path):
    f = write(tmp_path / "bad.py", "import torch\n\ndef f(:\n    pass\n")
    with pytest.raises(UserFileError) as ei:
        userfile.load(f)
    assert f"{f}:3: syntax error" in ei.value.message


def test_not_python(tmp_path):
    f = tmp_path / "data.py"
    f.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    with pytest.raises(UserFileError, match="is not a Python file"):
        userfile.load(f)


def test_missing_import_names_the_module(tmp_path):
    f = write(tmp_path / "imp.py", "import os\nimport tilescope_no_such_module\n")
    with pytest.raises(UserFileError) as ei:
        userfile.load(f)
    assert "imports module 'tilescope_no_such_module', which is not installed" in ei.value.message
    assert f"{f}:2" in ei.value.message


def test_registers_nothing(tmp_path):
    f = write(tmp_path / "empty.py", "import triton\nX = 1\n")
    with pytest.raises(UserFileError, match="registers no kernels"):
        userfile.load(f)


def test_an_exception_while_running_names_the_line(tmp_path):
    f = write(tmp_path / "boom.py", "x = 1\ny = x / 0\n")
    with pytest.raises(UserFileError) as ei:
        userfile.load(f)
    assert f"{f}:2: ZeroDivisionError" in ei.value.message


def test_a_failed_reload_keeps_the_previous_kernels(tmp_path, cleanup):
    f = write(tmp_path / "k.py", GOOD.replace("NAME", "user_keep"))
    cleanup.append(f)
    userfile.load(f)
    write(f, "def broken(:\n")
    with pytest.raises(UserFileError):
        userfile.load(f)
    assert "user_keep" in REGISTRY


def test_a_user_kernel_may_not_take_a_catalog_name(tmp_path):
    f = write(tmp_path / "shadow.py", GOOD.replace("NAME", "vector_add"))
    engine.infos()  # the catalog is loaded
    catalog_spec = REGISTRY.get("vector_add")
    with pytest.raises(UserFileError, match="'vector_add', the name of a kernel that is already loaded"):
        userfile.load(f)
    assert REGISTRY.get("vector_add") is catalog_spec and catalog_spec.origin == "catalog"


def test_a_kernel_file_need_not_end_in_py(tmp_path, cleanup):
    # people keep kernels in .txt/.triton files; it is Python all the same
    f = write(tmp_path / "axpy.kernel", GOOD.replace("NAME", "user_axpy_txt"))
    cleanup.append(f)
    assert [s.name for s in userfile.load(f)] == ["user_axpy_txt"]
    r = engine.run(RunRequest("user_axpy_txt", {"N": 100}, backend="interpreter", user_file=str(f)))
    assert r.error is None and r.check.passed
