"""The window's GPU trace is reduced on the device to what the window draws (the maps of a 2^26
vector add were copied to the host at 2^22 elements a map and reduced again there: 0.5 s on the
H200). On the CPU: the instrumented build under the interpreter (``device="cpu"``)."""

from __future__ import annotations

import kernels.catalog  # noqa: F401  (registers the bundled kernels)
from kernels.data.coarse import CoarseTrace, window_request
from kernels.data.trace import TraceRequest
from kernels.engine.kept_trace import KeptTrace


def test_a_window_request_is_reduced_on_the_device_to_its_cells():
    # breaks if the window's GPU trace came back at MAX_MAP_ELEMENTS and was reduced on the host
    req = window_request(TraceRequest("vector_add", {"N": 8192, "BLOCK_SIZE": 512}, backend="gpu"), 1024)
    kept = KeptTrace()
    res = kept.serve(req, device="cpu")
    assert res.error is None, res.error
    assert res.info.map_strides == [(8,)] * 3  # 8192 -> 1024 cells, on the device
    tr = res.trace
    assert isinstance(tr, CoarseTrace) and tr.cells == [(1, 8)] * 3
    assert all(t.numel <= 1024 for t in tr.tensors)
    assert (tr.maps_of("out_ptr").writer[:64] == [c // 64 for c in range(64)]).all()  # 512 = 64 cells a program
    kept.release()
