"""The per-SM timeline: bars where the schedule says, the program under the pointer, waves.

What breaks if these fail: the timeline shows programs on the wrong SM or at the wrong time, or
pointing at a bar lights another program in the grid."""

from __future__ import annotations

import numpy as np

from kernels.data.gpu_trace import Timeline
from views.timeline_view import TimelineView, synthetic_timeline


def _two_sm_schedule() -> Timeline:
    # SM 0 runs programs 0 then 2; SM 1 runs program 1 then 3 (times in ns, from an arbitrary clock)
    start = np.array([1_000_000, 1_000_000, 1_010_000, 1_012_000], np.int64)
    end = np.array([1_009_000, 1_011_000, 1_020_000, 1_030_000], np.int64)
    return Timeline(grid=(4, 1, 1), sm=np.array([0, 1, 0, 1], np.int32), start_ns=start, end_ns=end, n_sms=2,
                    programs_per_sm=1, kernel="t")


def test_the_program_under_the_pointer_is_the_one_that_ran_there(qtbot):
    w = TimelineView()
    qtbot.addWidget(w)
    w.set_timeline(_two_sm_schedule())
    assert w.program_at(5.0, 0) == 0 and w.program_at(15.0, 0) == 2  # µs since the first start
    assert w.program_at(5.0, 1) == 1 and w.program_at(20.0, 1) == 3
    assert w.program_at(9.5, 0) is None  # SM 0 idle between programs 0 and 2


def test_every_program_is_drawn_once_as_a_bar_on_its_sm(qtbot):
    tl = synthetic_timeline(n_programs=500, n_sms=16, per_sm=2)
    w = TimelineView()
    qtbot.addWidget(w)
    w.set_timeline(tl)
    xs, ys = [], []
    for c in w._curves:
        x, y = c.getData()
        if x is not None:
            xs.append(x)
            ys.append(y)
    x, y = np.concatenate(xs), np.concatenate(ys)
    assert x.size == 2 * 500  # a start and an end per program
    assert sorted(np.unique(y).astype(int).tolist()) == list(range(16))
    assert tl.measured_waves() > 0 and "wave" in w.summary.text().lower()


def test_an_empty_timeline_clears_the_view(qtbot):
    w = TimelineView()
    qtbot.addWidget(w)
    w.set_timeline(_two_sm_schedule())
    w.set_timeline(None)
    assert all((c.getData()[0] is None or len(c.getData()[0]) == 0) for c in w._curves)
    assert w.program_at(5.0, 0) is None
