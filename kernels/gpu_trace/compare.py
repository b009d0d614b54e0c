"""Cross-checks of the GPU recorder against the interpreter recorder, and of the GPU's outputs
against the interpreter's — numpy only (the GUI process imports this module).

``differences(gpu, ref)`` lists, one line each, where two traces of the same launch disagree:
grid, tensors, each map element for element, per-program statistics, out-of-bounds records
(program, op, line, kind, lanes, nearest tensor). Empty: the same trace. The cases
the tests compare on are in ``tests/fixtures/cross_check_cases.py``.

"Interpreter vs GPU" (the window's compare action; the run is ``serve.compare_backends``): the
same launch on the same seeded inputs both ways; ``differing_elements(a, b, atol, rtol)`` marks
the output elements that disagree, ``programs_of(differ, writer)`` names the programs that wrote
them (from the GPU trace's writer map), ``BackendComparison`` is the answer. A big launch is
compared on a window of programs (``kernels.gpu_trace.bounded``): ``OutputDiff.of(..., only=)``
looks at the elements those programs wrote and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..data.gpu_trace import GpuTraceResult
from ..data.trace import NO_PROGRAM, SEVERAL, Trace

__all__ = ["MAP_FIELDS", "BackendComparison", "OutputDiff", "differences",
           "differing_elements", "programs_of", "writer_of"]

MAP_FIELDS = ("writer", "reader", "n_reads", "n_writes", "n_readers", "n_atomic")


def _oob_rows(tr: Trace) -> list[tuple]:
    return sorted((r.program, r.op, r.line, r.kind, r.count, r.nearest_tensor) for r in tr.oob)


def differences(gpu: Trace, ref: Trace, max_lines: int = 20) -> list[str]:
    """Where ``gpu`` (all programs) and ``ref`` (the interpreter recorder's) disagree."""
    out: list[str] = []
    if tuple(gpu.grid) != tuple(ref.grid):
        return [f"grid {gpu.grid} != {ref.grid}"]
    if [t.name for t in gpu.tensors] != [t.name for t in ref.tensors]:
        return [f"tensors {[t.name for t in gpu.tensors]} != {[t.name for t in ref.tensors]}"]
    for info, a, b in zip(ref.tensors, gpu.maps, ref.maps, strict=True):
        for f in MAP_FIELDS:
            x, y = getattr(a, f), getattr(b, f)
            if (x is None) != (y is None):
                out.append(f"{info.name}.{f}: {'None' if x is None else 'an array'} != "
                           f"{'None' if y is None else 'an array'}")
            elif x is not None and (x.shape != y.shape or not np.array_equal(x, y)):
                bad = np.argwhere(x != y)[:3].tolist() if x.shape == y.shape else f"shape {x.shape} != {y.shape}"
                out.append(f"{info.name}.{f} differs at {bad}")
    at = np.searchsorted(gpu.programs, ref.programs)
    if at.size and (at.max() >= gpu.programs.size or not np.array_equal(gpu.programs[at], ref.programs)):
        return [*out, "the reference has programs the GPU trace lacks"]
    for f in ("bytes_loaded", "bytes_stored", "n_oob"):
        if not np.array_equal(getattr(gpu.stats, f)[at], getattr(ref.stats, f)):
            out.append(f"stats.{f} differs")
    if not np.allclose(gpu.stats.masked_fraction[at], ref.stats.masked_fraction, atol=1e-6):
        out.append("stats.masked_fraction differs")
    if _oob_rows(gpu) != _oob_rows(ref):
        out.append(f"out-of-bounds records differ: {_oob_rows(gpu)[:3]} != {_oob_rows(ref)[:3]}")
    return out[:max_lines]


# ---------------------------------------------------------------------------------------------
# interpreter vs GPU: the outputs


def differing_elements(a: np.ndarray, b: np.ndarray, atol: float = 0.0, rtol: float = 0.0) -> np.ndarray:
    """bool, of ``a``'s shape: where ``a`` and ``b`` disagree beyond ``atol + rtol * |b|`` (floats)
    or at all (integers and booleans). Two NaNs agree (an element both runs left unwritten); a NaN
    against a number does not. Raises ValueError when the shapes differ."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise ValueError(f"the outputs have different shapes: {a.shape} and {b.shape}")
    if not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(b.dtype, np.floating)):
        return a != b
    x, y = a.astype(np.float64), b.astype(np.float64)
    nan_x, nan_y = np.isnan(x), np.isnan(y)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(x - y) <= atol + rtol * np.abs(y)
        close |= x == y  # equal infinities
    return np.where(nan_x | nan_y, nan_x != nan_y, ~close)


def programs_of(differ: np.ndarray, writer: np.ndarray) -> tuple[np.ndarray, int, int]:
    """(the programs that wrote a differing element, sorted int32; how many differing elements
    several programs wrote; how many no program wrote). ``writer`` is a trace's writer map of the
    same shape (``NO_PROGRAM`` / ``SEVERAL`` where not one program)."""
    differ, writer = np.asarray(differ, bool), np.asarray(writer)
    if differ.shape != writer.shape:
        raise ValueError(f"the writer map is {writer.shape}, the output {differ.shape}")
    w = writer[differ]
    pids = np.unique(w[w >= 0]).astype(np.int32)
    return pids, int(np.count_nonzero(w == SEVERAL)), int(np.count_nonzero(w == NO_PROGRAM))


def writer_of(trace: Trace, output: str, shape: tuple[int, ...]) -> np.ndarray | None:
    """The writer map of the trace's tensor argument that holds output ``output`` (``"out"`` is
    passed as ``out_ptr``; else the only written tensor of that shape), None when none does or
    its map is not of ``shape`` (reduced by blocks)."""
    names = [t.name for t in trace.tensors]
    found = next((names.index(c) for c in (output, f"{output}_ptr", f"{output}_ptrs") if c in names), None)
    if found is None:
        written = [i for i, m in enumerate(trace.maps) if m.writer.shape == tuple(shape) and (m.n_writes > 0).any()]
        found = written[0] if len(written) == 1 else None
    if found is None or trace.maps[found].writer.shape != tuple(shape):
        return None
    return trace.maps[found].writer


@dataclass
class OutputDiff:
    """One output tensor, interpreter against GPU."""

    name: str
    n_elements: int
    n_differ: int
    max_abs: float  # the largest difference where both are numbers (0.0: none)
    programs: np.ndarray  # int32: the programs that wrote a differing element
    n_several: int = 0  # differing elements written by more than one program
    n_unwritten: int = 0  # differing elements no program wrote (one run left a NaN there)

    @classmethod
    def of(cls, name: str, interp: np.ndarray, gpu: np.ndarray, writer: np.ndarray | None, atol: float,
           rtol: float, only: np.ndarray | None = None) -> OutputDiff:
        """``only`` (bool, the output's shape): compare those elements alone (a window of
        programs ran under the interpreter: the elements they wrote); ``n_elements`` counts them."""
        differ = differing_elements(gpu, interp, atol, rtol)
        both = ~(np.isnan(np.asarray(interp, np.float64)) | np.isnan(np.asarray(gpu, np.float64)))
        if only is not None:
            differ &= only
            both &= only
        gap = np.abs(np.asarray(interp, np.float64) - np.asarray(gpu, np.float64))[both]
        if writer is not None and writer.shape == differ.shape:
            pids, several, unwritten = programs_of(differ, writer)
        else:  # a map reduced by blocks: the elements are not attributed
            pids, several, unwritten = np.zeros(0, np.int32), 0, 0
        n = int(differ.size) if only is None else int(np.count_nonzero(only))
        return cls(name, n, int(np.count_nonzero(differ)), float(gap.max()) if gap.size else 0.0,
                   pids, several, unwritten)


@dataclass
class BackendComparison(GpuTraceResult):
    """The answer to "interpreter vs GPU": ``trace`` is the GPU trace of the launch (its writer
    maps attribute the elements), ``outputs`` one ``OutputDiff`` per output tensor."""

    outputs: list[OutputDiff] = field(default_factory=list)
    atol: float = 0.0
    rtol: float = 0.0
    #: the programs compared when not all were ("0–4095"; "" when every program was), of ``n_programs``
    compared: str = ""
    n_programs: int = 0
    n_compared: int = 0  # programs run under the interpreter
    why_window: str = ""  # "programs" (too many), "time" (the budget ran out), "window" (the request's)
    not_compared: list[str] = field(default_factory=list)  # outputs whose written elements cannot be told

    @property
    def programs(self) -> np.ndarray:
        """int32, sorted: every program that wrote a differing element of any output."""
        if not self.outputs:
            return np.zeros(0, np.int32)
        return np.unique(np.concatenate([o.programs for o in self.outputs])).astype(np.int32)

    @property
    def n_differ(self) -> int:
        return sum(o.n_differ for o in self.outputs)
