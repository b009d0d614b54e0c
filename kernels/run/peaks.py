"""An honest peak: per device and dtype, the best of several cuBLAS matmul and copy shapes,
timed with the timing policy (``kernels.run.timing``: warmed to the working clock), named, with
the data-sheet figure beside it — and never silently exceeded.

A kernel that beats the shown peak (a Triton matmul tuned for one shape can beat cuBLAS on it)
triggers a re-measure of that peak (``PeakBook.check``); if the kernel is still above, the peak
becomes the kernel's own figure and says so ("run above cuBLAS's best"), so "% of peak" stays at
most 100 and the plot names where its line came from.

Measured once per device and cached beside ``kernels.run.device``'s peaks (``cache_dir()``,
``device_peaks_v2.json``). ``PeakBook`` holds the logic and takes its measuring function as an
argument, so the re-measure rule is tested on the CPU.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["DATASHEET", "MATMUL_SHAPES", "COPY_BYTES", "Peak", "PeakBook", "book", "datasheet_for",
           "kind_for_metric", "peak_for"]

#: matmul shapes (M, N, K) whose best is the peak of a dtype; copies (bytes) for the bandwidth
MATMUL_SHAPES = ((4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 16384))
COPY_BYTES = (256 << 20, 1 << 30, 2 << 30)
MATMUL_DTYPES = ("fp16", "bf16", "fp32")

#: data-sheet figures: dense TFLOP/s per dtype (fp32 inputs: TF32 tensor cores, what Triton's
#: tl.dot uses by default) and memory bandwidth (GB/s). Matched by substring of the device name,
#: first match wins (so "H100 PCIe" before "H100").
DATASHEET: tuple[tuple[str, dict[str, float], str], ...] = (
    ("H200", {"fp16": 989.0, "bf16": 989.0, "fp32": 494.0, "copy": 4800.0}, "NVIDIA H200 SXM data sheet"),
    ("H100 PCIe", {"fp16": 756.0, "bf16": 756.0, "fp32": 378.0, "copy": 2000.0}, "NVIDIA H100 PCIe data sheet"),
    ("H100", {"fp16": 989.0, "bf16": 989.0, "fp32": 494.0, "copy": 3350.0}, "NVIDIA H100 SXM data sheet"),
    ("A100", {"fp16": 312.0, "bf16": 312.0, "fp32": 156.0, "copy": 2039.0}, "NVIDIA A100 80GB SXM data sheet"),
    ("L4", {"fp16": 121.0, "bf16": 121.0, "fp32": 60.0, "copy": 300.0}, "NVIDIA L4 data sheet"),
)


def datasheet_for(device: str, key: str) -> tuple[float | None, str]:
    for name, figs, source in DATASHEET:
        if name.lower() in device.lower():
            return figs.get(key), source
    return None, ""


def kind_for_metric(metric: str, dtype: str) -> str:
    """The peak a kernel's metric is compared with: "copy" (GB/s) or the matmul dtype."""
    if metric != "TFLOP/s":
        return "copy"
    return dtype if dtype in MATMUL_DTYPES else "bf16"


@dataclass
class Peak:
    key: str  # "copy" | "fp16" | "bf16" | "fp32"
    value: float  # GB/s or TFLOP/s
    source: str  # what gave it: "cuBLAS fp16 4096×4096×4096 (best of 3 shapes)", "run above …"
    datasheet: float | None = None
    datasheet_source: str = ""
    measured_at: str = ""
    tries: dict[str, float] = field(default_factory=dict)  # each shape's figure
    remeasured: int = 0  # times a run above it made it measure again

    def label(self, unit: str) -> str:
        ds = f"; data sheet {self.datasheet:,.0f} {unit}" if self.datasheet else ""
        return f"{self.value:,.0f} {unit}: {self.source}{ds}"


MeasureFn = Callable[[str], tuple[float, str, dict[str, float]]]  # key -> (value, source, tries)


class PeakBook:
    """The peaks of one device: measured on first use, re-measured when a run goes above one."""

    def __init__(self, device: str, measure: MeasureFn, stored: dict[str, Any] | None = None,
                 save: Callable[[dict[str, Any]], None] | None = None, max_remeasures: int = 1) -> None:
        self.device = device
        self._measure = measure
        self._save = save
        self.max_remeasures = max_remeasures
        self.peaks: dict[str, Peak] = {}
        for k, v in (stored or {}).items():
            try:
                self.peaks[k] = Peak(**v)
            except TypeError:  # another layout: measured again when asked
                pass

    def get(self, key: str) -> Peak:
        if key not in self.peaks:
            self.peaks[key] = self._measured(key)
            self._store()
        return self.peaks[key]

    def _measured(self, key: str, remeasured: int = 0) -> Peak:
        value, source, tries = self._measure(key)
        ds, ds_src = datasheet_for(self.device, key)
        return Peak(key, value, source, ds, ds_src, time.strftime("%Y-%m-%d %H:%M:%S"), tries, remeasured)

    def check(self, key: str, figure: float, run_label: str = "a run") -> Peak:
        """The peak to show beside ``figure``: if the figure is above it, the peak is measured
        again (at most ``max_remeasures`` times per key) and, if the figure is still above, the
        figure becomes the peak, named after ``run_label``."""
        pk = self.get(key)
        if figure <= pk.value:
            return pk
        if pk.remeasured < self.max_remeasures:
            again = self._measured(key, pk.remeasured + 1)
            if again.value > pk.value:
                pk = again
            else:
                pk.remeasured += 1
            self.peaks[key] = pk
        if figure > pk.value:
            pk = Peak(key, figure, f"{run_label}, above {pk.source} ({pk.value:,.0f})", pk.datasheet,
                      pk.datasheet_source, time.strftime("%Y-%m-%d %H:%M:%S"), dict(pk.tries), pk.remeasured)
            self.peaks[key] = pk
        self._store()
        return pk

    def for_figure(self, metric: str, dtype: str, figure: float | None,
                   run_label: str = "a run") -> tuple[Peak, float, float]:
        """(the peak shown beside ``figure`` — checked, see ``check`` —, the copy peak, the matmul
        peak for ``dtype``): a run carries both roofs (the roofline needs them), only the one its
        metric is compared with is re-measured when exceeded."""
        key = kind_for_metric(metric, dtype)
        shown = self.check(key, figure, run_label) if figure is not None else self.get(key)
        other = self.get(kind_for_metric("TFLOP/s", dtype) if key == "copy" else "copy")
        return (shown, shown.value, other.value) if key == "copy" else (shown, other.value, shown.value)

    def _store(self) -> None:
        if self._save is not None:
            self._save({k: asdict(v) for k, v in self.peaks.items()})


# ---------------------------------------------------------------------------------------------
# on the GPU


def _measure_on_gpu(key: str) -> tuple[float, str, dict[str, float]]:
    """The best of cuBLAS's matmul shapes for a dtype, or of device copies, each timed with the
    timing policy's full budget (warmed to the working clock)."""
    import torch

    from . import timing

    tries: dict[str, float] = {}
    if key == "copy":
        for nbytes in COPY_BYTES:
            src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").fill_(1.0)
            dst = torch.empty_like(src)
            m = timing.measure([lambda d=dst, s=src: d.copy_(s)], timing.FULL)
            tries[f"copy {nbytes >> 20} MiB"] = 2 * nbytes / m.timings[0].median_ms / 1e6
            src = dst = None
        best = max(tries, key=tries.__getitem__)
        torch.cuda.empty_cache()
        return tries[best], f"device copy {best.split(' ', 1)[1]} (best of {len(tries)} sizes)", tries
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[key]
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True  # fp32 inputs: TF32, as Triton's tl.dot
    try:
        for m_, n_, k_ in MATMUL_SHAPES:
            a = torch.randn(m_, k_, device="cuda", dtype=dt)
            b = torch.randn(k_, n_, device="cuda", dtype=dt)
            m = timing.measure([lambda a=a, b=b: a @ b], timing.FULL)
            tries[f"{m_}×{n_}×{k_}"] = 2 * m_ * n_ * k_ / m.timings[0].median_ms / 1e9
            a = b = None
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.cuda.empty_cache()
    best = max(tries, key=tries.__getitem__)
    name = "tf32 (fp32 inputs)" if key == "fp32" else key
    return tries[best], f"cuBLAS {name} {best} (best of {len(tries)} shapes)", tries


_BOOKS: dict[str, PeakBook] = {}


def _file():
    from .device import cache_dir

    return cache_dir() / "device_peaks_v2.json"


def book() -> PeakBook | None:
    """The current CUDA device's peak book (None without a GPU), read from the cache file."""
    import torch

    if not torch.cuda.is_available():
        return None
    idx = torch.cuda.current_device()
    p = torch.cuda.get_device_properties(idx)
    uuid = str(getattr(p, "uuid", "") or "")
    dkey = f"{p.name}|{uuid}" if uuid else p.name
    if dkey in _BOOKS:
        return _BOOKS[dkey]
    path = _file()
    try:
        stored_all = json.loads(path.read_text())
    except (OSError, ValueError):
        stored_all = {}

    def save(d: dict[str, Any]) -> None:
        try:
            try:
                cur = json.loads(path.read_text())
            except (OSError, ValueError):
                cur = {}
            cur[dkey] = d
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(cur, indent=1))
            tmp.replace(path)
        except OSError:  # a read-only home keeps the numbers for this process
            pass

    b = PeakBook(p.name, _measure_on_gpu, stored_all.get(dkey) if isinstance(stored_all.get(dkey), dict) else None,
                 save)
    _BOOKS[dkey] = b
    return b


def peak_for(metric: str, dtype: str, figure: float | None = None,
             run_label: str = "a run") -> tuple[Peak, float, float] | None:
    """(the peak shown beside a kernel's figure — re-measured if the figure is above it —, the
    copy peak GB/s, the matmul peak TFLOP/s for the dtype); None without a GPU."""
    b = book()
    if b is None:
        return None
    return b.for_figure(metric, dtype, figure, run_label)
