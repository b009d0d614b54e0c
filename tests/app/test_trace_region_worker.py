"""``trace_region`` through a real worker process: the full trace behind the reduced one is kept
there and a rectangle of it comes back at full resolution; a stale or oversized request is
refused with one line."""

from __future__ import annotations

import numpy as np
import pytest
from worker_env import worker_env

from app.client import WorkerClient, WorkerError
from kernels.data.coarse import CoarseTrace, window_request
from kernels.data.region import MAX_REGION_ELEMENTS, RegionAnswer, RegionRequest
from kernels.data.results import RunRequest
from kernels.data.trace import TraceRequest
from kernels.engine.kept_trace import SOURCE_HOST


@pytest.mark.slow
def test_the_real_worker_answers_a_region_exactly_and_refuses_stale_or_huge_ones(tmp_path):
    # breaks if the worker dropped the full trace it reduced, answered from the cells, answered a
    # region of a trace it no longer keeps (a run needs the memory; a new trace replaces it), or
    # read more than a request may fetch
    env = worker_env(tmp_path)
    req = TraceRequest(kernel="vector_add", values={"N": 1 << 16, "BLOCK_SIZE": 1024})
    with WorkerClient(env=env) as client:
        whole = client.call("trace", req, timeout=300).trace  # the CLI's request: every element, nothing kept
        reduced = client.call("trace", window_request(req, 1 << 10), timeout=300).trace
        assert isinstance(reduced, CoarseTrace) and reduced.region_key
        ans = client.call("trace_region", RegionRequest(reduced.region_key, 2, (0, 1), (5000, 9000)), timeout=60)
        with pytest.raises(WorkerError) as huge:
            client.call("trace_region", RegionRequest(reduced.region_key, 2, (0, 1), (0, MAX_REGION_ELEMENTS + 1)),
                        timeout=60)
        client.call("run", RunRequest("vector_add", {"N": 1024}, backend="interpreter", bench=False,
                                      torch_baseline=False), timeout=300)  # a run may need the memory
        with pytest.raises(WorkerError) as stale:
            client.call("trace_region", RegionRequest(reduced.region_key, 2, (0, 1), (5000, 9000)), timeout=60)
    assert isinstance(ans, RegionAnswer) and ans.source == SOURCE_HOST
    for f in ("writer", "reader", "n_reads", "n_writes", "n_readers"):
        np.testing.assert_array_equal(getattr(ans.maps, f)[0], getattr(whole.maps[2], f)[5000:9000], err_msg=f)
    assert ans.owner(0, 8191) == 7 and ans.owner(0, 8192) == 8
    for err, words in ((huge.value.info, "zoom in further"), (stale.value.info, "no longer kept")):
        assert err.kind == "validation" and words in err.message and "\n" not in err.message, err.message

