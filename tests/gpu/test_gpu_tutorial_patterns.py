"""The tutorial patterns (tests/kernels/scripts/tutorial_patterns) on a CUDA device: the real
launches captured and re-run against their captured outputs, a changed configuration run, and the
same launch replayed under the interpreter. Skipped without CUDA.

What breaks if these fail: a tutorial that runs as plain Python on the GPU does not open, re-run
or check in Tilescope there (a pointer table's tensors not found, a descriptor's base not restored,
the allocator of ``triton.set_allocator`` lost in the worker's thread)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import torch

from kernels import engine
from kernels.data.results import RunRequest
from kernels.script import open_script
from kernels.trace import trace_spec

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

SCRIPTS = Path(__file__).parents[1] / "kernels" / "scripts" / "tutorial_patterns"

#: in a changed configuration: the autotune config Triton's autotuner did not choose
OTHER = "the other config"

#: script -> (launch index, a changed configuration, outputs the first run checks)
CASES = {
    "device_checks.py": (0, {"BLOCK_SIZE": 128, "num_warps": 8}, {"out_ptr"}),
    "pointer_table.py": (0, {"BLOCK": 256}, {"*y_ptrs[0]", "*y_ptrs[1]", "*y_ptrs[2]"}),
    "pointer_table_autotuned.py": (0, {"autotune_config": OTHER}, {"*y_ptrs[0]", "*y_ptrs[1]", "*y_ptrs[2]"}),
    "descriptor_prehook.py": (0, {"autotune_config": OTHER}, {"yt_desc.base"}),
    "tensor_descriptor.py": (0, {"BM": 16}, {"out_desc.base"}),
    "tensor_descriptor.py#2": (1, {"BM": 16}, {"y_ptr"}),
    "dropout_rand.py": (0, {"BLOCK_SIZE": 128}, {"out_ptr"}),
    "libdevice_asin.py": (0, {"BLOCK_SIZE": 64}, {"y_ptr"}),
    "persistent_pdl.py": (0, {"num_warps": 8}, {"out_ptr"}),
    "gluon_copy.py": (0, {"BLOCK": 256}, {"y_ptr"}),
}


def _run_in_another_thread(req: RunRequest):
    """The worker serves requests off the capture's thread: a ContextVar set by the script
    (``triton.set_allocator``) is not there."""
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("r", engine.run(req)))
    t.start()
    t.join()
    return box["r"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_tutorial_pattern_captured_on_the_gpu_reruns(case):
    index, changed, outputs = CASES[case]
    cap, specs = open_script(str(SCRIPTS / case.split("#")[0]), "gpu")
    assert cap.backend == "gpu" and cap.error == "", cap.error
    spec = specs[index]
    first = _run_in_another_thread(RunRequest(spec.name, {}, backend="gpu", torch_baseline=False))
    assert first.error is None and first.check.passed, (first.error, first.check and first.check.reason)
    assert {first.check.output} | {o.output for o in first.check.others} == outputs
    if changed.get("autotune_config") == OTHER:  # both configs valid by design; the one not timed best
        chosen = cap.launches[index].autotune_choice
        assert chosen in (0, 1), cap.launches[index].autotune_choice
        changed = {"autotune_config": 1 - chosen}
    r = _run_in_another_thread(RunRequest(spec.name, changed, backend="gpu", torch_baseline=False))
    assert r.error is None and r.check.passed, (r.error, r.check and r.check.reason)
    if case != "gluon_copy.py":  # Gluon: the interpreter cannot replay it (the CPU test says so)
        tr = trace_spec(spec, {})
        assert not tr.oob


def test_needs_blackwell_on_an_h200_says_so():
    cap, specs = open_script(str(SCRIPTS / "needs_blackwell.py"), "gpu")
    if torch.cuda.get_device_capability()[0] == 10:
        assert len(specs) == 1
    else:
        assert not specs and "Blackwell" in cap.log
