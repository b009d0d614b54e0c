"""The demo fixtures in resources/demo/ are what the kernels record today.

The widgets' previews and tests draw these recordings; if a catalog kernel, the tracer or the
trace model changes, the shipped files go stale and the demos would show a kernel that no longer
exists. These tests record them again (on the CPU interpreter: this module imports the engine)
and compare. When one fails, run ``python -m kernels.trace.demo_fixtures`` and look at what changed.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("triton")

from kernels.data.trace import AccessTable, TensorMaps  # noqa: E402
from kernels.trace import demo_fixtures  # noqa: E402
from views.demo import FIXTURE_DIR, fixture_names, load, repeat_programs  # noqa: E402

TRACES = [n for n in demo_fixtures.names() if n != "kernel_infos"]


def _assert_same_arrays(a, b, fields, what: str) -> None:
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if x is None or y is None:
            assert x is None and y is None, f"{what}.{f}"
        else:
            np.testing.assert_array_equal(x, y, err_msg=f"{what}.{f}")


def _assert_same_trace(fresh, shipped, name: str) -> None:
    for f in ("kernel", "grid", "window", "tensors", "oob", "loop_lines", "loop_parents", "source",
              "source_file", "source_first_line", "values", "scalars", "constexprs"):
        assert getattr(fresh, f) == getattr(shipped, f), f"{name}: {f} changed"
    np.testing.assert_array_equal(fresh.programs, shipped.programs, err_msg=f"{name}.programs")
    _assert_same_arrays(fresh.events, shipped.events, AccessTable.__dataclass_fields__, f"{name}.events")
    assert len(fresh.maps) == len(shipped.maps)
    for t, (m1, m2) in enumerate(zip(fresh.maps, shipped.maps, strict=True)):
        _assert_same_arrays(m1, m2, TensorMaps.__dataclass_fields__, f"{name}.maps[{t}]")


def test_every_fixture_is_shipped_and_small():
    # breaks if a fixture is missing (a demo would fail to open) or the set grows heavy
    assert set(fixture_names()) == set(demo_fixtures.names())
    total = sum(p.stat().st_size for p in FIXTURE_DIR.glob("*" + demo_fixtures.SUFFIX))
    assert total < 1 << 20, f"{total} bytes of demo fixtures"


@pytest.mark.parametrize("name", TRACES)
def test_a_trace_recorded_again_equals_the_shipped_one(name):
    # breaks if the kernel, the tracer or the trace model changed since the fixture was written
    _assert_same_trace(demo_fixtures.build(name), load(name), name)


def test_the_kernel_infos_equal_the_catalogs():
    # breaks if a catalog kernel's parameters, rules or source changed since the fixture was written
    assert demo_fixtures.build("kernel_infos") == load("kernel_infos")


def test_a_repeated_recording_equals_a_recording_of_the_longer_launch():
    # breaks if the large vector adds of the stress tests (a recording repeated along the grid)
    # differ from what the tracer records for that launch
    from kernels.sources.lookup import get_spec
    from kernels.trace import trace_spec

    recorded = trace_spec(get_spec("vector_add"), {"N": 3 * 4096, "BLOCK_SIZE": 128, "dtype": "fp32"}, workers=1)
    repeated = repeat_programs(load("vector_add_4096"), 3)
    assert repeated.grid == recorded.grid and repeated.values == recorded.values
    assert repeated.tensors == recorded.tensors and repeated.scalars == recorded.scalars
    _assert_same_arrays(repeated.events, recorded.events, AccessTable.__dataclass_fields__, "events")
    for t, (m1, m2) in enumerate(zip(repeated.maps, recorded.maps, strict=True)):
        _assert_same_arrays(m1, m2, TensorMaps.__dataclass_fields__, f"maps[{t}]")
    np.testing.assert_array_equal(repeated.stats.bytes_loaded, recorded.stats.bytes_loaded)
    np.testing.assert_array_equal(repeated.wave, recorded.wave)
