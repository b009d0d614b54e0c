"""A run's clocks and its peak's source are kept in the History and come back in its rows and
exports (issue 22: "record each run's SM clock, memory clock, temperature and power … History")."""

from __future__ import annotations

import json

from app.history import History
from app.session import history_row_from_record
from kernels.data.results import Clocks
from views.demo_results import demo_run_result

HOT = Clocks(source="nvml", sm_mhz=1665, sm_max_mhz=1980, mem_mhz=3201, temp_c=54, power_w=235.0,
             reasons=["power cap"], warm_s=0.16, steady=True, throttled=True,
             note="SM clock 1665 of 1980 MHz (power cap)")


def test_clocks_survive_the_history_file_and_reach_the_row(tmp_path):
    h = History.open(tmp_path / "history.db")
    r = demo_run_result()
    r.clocks = HOT
    r.metrics.peak_source = "cuBLAS fp16 4096×4096×4096 (best of 3 shapes)"
    rid = h.add(r)
    unknown = demo_run_result()
    unknown.clocks = Clocks(note="clocks unknown: pynvml is not installed")
    rid2 = h.add(unknown)
    h.close()
    h = History.open(tmp_path / "history.db")
    rec = h.get(rid)
    c = rec["metrics"]["clocks"]
    assert (c["sm_mhz"], c["mem_mhz"], c["temp_c"], c["power_w"], c["throttled"]) == (1665, 3201, 54, 235.0, True)
    assert c["reasons"] == ["power cap"] and rec["metrics"]["peak_source"].startswith("cuBLAS fp16")
    row = history_row_from_record(rec, "GB/s")
    assert row["clocks"]["sm_mhz"] == 1665 and row["p20_ms"] == r.timing.p20_ms
    assert h.get(rid2)["metrics"]["clocks"]["note"] == "clocks unknown: pynvml is not installed"
    out = tmp_path / "runs.json"
    h.export_json(out)
    assert json.loads(out.read_text())[0]["metrics"]["clocks"]["sm_mhz"] == 1665
    h.close()
