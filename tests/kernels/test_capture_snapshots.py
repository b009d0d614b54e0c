"""The copies a captured launch keeps (kernels/script/snapshots.py): its tensors before it and,
for those it wrote, after it — made where the tensors are, compared there, moved to the host when
the script has ended if they take too much of the device, and refused (the script stopped, its
earlier launches kept) when they fit nowhere.

What breaks if these fail: Gluon 01–04 and 08 on the H200 record no launch within their budget
(every 8 GiB tensor copied to the host and back again), a re-run is checked against a copy the
script changed afterwards, or a GPU-sized script takes the worker's memory down with it.
"""

from __future__ import annotations

import importlib
import textwrap

import pytest
import torch
import triton
import triton.language as tl

from kernels.run.backends import Backend
from kernels.script.capture import StopScript, _Capture, capture
from kernels.script.snapshots import Snapshots, TooLarge, same

capture_mod = importlib.import_module("kernels.script.capture")  # the package's name is the function


@triton.jit
def _double(x, out, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out + i, tl.load(x + i) * 2)


def test_copies_are_independent_of_the_script_and_find_what_was_written():
    s = Snapshots()
    x, out = torch.arange(4.0), torch.full((4,), float("nan"))
    before = s.take({"x": x, "out": out}, "the launch")
    x.add_(1)  # the script changes its tensor afterwards: the copy keeps the launch's view
    assert torch.equal(before["x"], torch.arange(4.0))
    out[1:] = 7.0
    written, made = s.written({"x": x, "out": out}, before)
    assert written == ["x", "out"] and made == {}
    nan_again = torch.full((4,), float("nan"))  # NaN rewritten as NaN: not a write
    assert s.written({"out": nan_again}, {"out": torch.full((4,), float("nan"))})[0] == []
    assert same(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]))
    assert not same(torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 1.0]))
    assert not same(torch.tensor([1, 2]), torch.tensor([1, 3]))


def test_copies_that_fit_nowhere_are_refused_with_their_size():
    s = Snapshots(host_budget=1000)
    s.take({"small": torch.zeros(100, dtype=torch.uint8)}, "launch 1")
    with pytest.raises(TooLarge, match=r"the launch of big: its tensors take 4\.0 MiB.*was not made"):
        s.take({"x": torch.zeros(1 << 20)}, "the launch of big")
    assert len(s.kept) == 1 and s.on_device == 0
    notes: list[str] = []
    s.settle(notes)  # nothing on a device: nothing to move
    assert notes == []


def _gpu_like_capture(tmp_path, **budgets) -> _Capture:
    """The GPU path of a capture (the launch made by ``real_run``, what it wrote found by
    comparing the copies) with CPU tensors: the launch itself is a torch stand-in."""
    cap = _Capture(str(tmp_path / "script.py"), Backend("gpu", "cpu", "test"), 16, {})
    cap.snapshots = Snapshots(**budgets)
    return cap


def _stand_in(fn, *args, grid, warmup, **kwargs):
    x, out = args[0], args[1]
    out.copy_(x * 2)


def test_the_gpu_path_keeps_before_and_after_and_what_was_written(tmp_path):
    cap = _gpu_like_capture(tmp_path)
    x, out = torch.arange(8.0), torch.zeros(8)
    cap.launch(_double, (1,), (x, out), {"N": 8}, _stand_in)
    lv = cap.live[0]
    assert lv.written == ["out"] and lv.read == ["x"]
    assert torch.equal(lv.before["out"], torch.zeros(8)) and torch.equal(lv.after["out"], torch.arange(8.0) * 2)
    out.zero_()  # the script reuses its output: the golden copy stays
    assert torch.equal(lv.after["out"], torch.arange(8.0) * 2)


def test_a_launch_too_large_to_copy_stops_the_script_before_it_is_made(tmp_path):
    cap = _gpu_like_capture(tmp_path, host_budget=100)
    made = []
    with pytest.raises(StopScript) as e:
        cap.launch(_double, (1,), (torch.arange(64.0), torch.zeros(64)), {"N": 64},
                   lambda *a, **k: made.append(1))
    assert "fits neither the GPU's share nor the host's" in e.value.reason and not made and not cap.live


SCRIPT = """
    import torch, triton, triton.language as tl

    @triton.jit
    def copy(x, y, N: tl.constexpr):
        i = tl.arange(0, N)
        tl.store(y + i, tl.load(x + i))

    for n in (16, 1 << 16):
        x = torch.randn(n, device="cuda")
        y = torch.empty_like(x)
        copy[(1,)](x, y, N=16)
"""


def test_a_script_whose_second_launch_fits_nowhere_keeps_its_first(tmp_path, monkeypatch):
    path = tmp_path / "big_second.py"
    path.write_text(textwrap.dedent(SCRIPT))
    real = capture_mod.snapshots.Snapshots
    monkeypatch.setattr(capture_mod.snapshots, "Snapshots", lambda: real(host_budget=64 * 1024))
    from kernels.run.backends import resolve

    out, live = capture(str(path), resolve("interpreter"), budget_s=60)
    assert len(live) == 1 and torch.equal(live[0].after["y"], live[0].before["x"][:16])
    assert out.stopped.startswith("stopped: the launch of copy at line 12: its tensors take 0.5 MiB"), out.stopped
