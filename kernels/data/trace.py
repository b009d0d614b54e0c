"""The trace model: what the tracer records and the grid view draws — numpy only, no torch/triton.

One ``Trace`` per launch. Access events are stored columnar (one numpy array per field, one row
per event) and the active lanes of all events are concatenated in ``AccessTable.elements``; an
event's lanes are ``elements[lane_start[e] : lane_start[e] + n_active[e]]``. Element indices are
*logical* flat (row-major) indices into the tensor's shape, obtained through its strides.

Program ids are linear in dispatch order, x fastest: ``pid = x + gx * (y + gy * z)``.

Loops: column ``j`` of ``AccessTable.iters`` belongs to loop ``j`` of the kernel, numbered in
source order (so in a nest the outer loop comes first); ``Trace.loop_lines[j]`` is its source
line and ``Trace.loop_parents[j]`` the loop it sits in (-1 at the top level). An entry is the
0-based iteration of that loop when the access happened, -1 when the access was outside it.

The GUI process imports this module: it must stay numpy-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .backends import INTERPRETER
from .grid import program_xyz

__all__ = ["OP_LOAD", "OP_STORE", "OP_ATOMIC", "OP_NAMES", "TensorInfo", "AccessTable", "OOBRecord",
           "TensorMaps", "ProgramStats", "Trace", "NO_PROGRAM", "SEVERAL", "Window", "TraceRequest",
           "TraceResult", "OOB_OUTSIDE_STORAGE", "OOB_OUTSIDE_VIEW"]

OP_LOAD, OP_STORE, OP_ATOMIC = 0, 1, 2
OP_NAMES = ("load", "store", "atomic")
NO_PROGRAM = -1  # in writer/reader maps: no program touched the element
SEVERAL = -2  # in writer/reader maps: more than one program did

#: an unmasked lane whose address lies in no argument's storage: the tracer masked it off (a load
#: got ``other``/0, a store wrote nothing), where a GPU would fault or read/write garbage
OOB_OUTSIDE_STORAGE = "outside storage"
#: an unmasked lane inside an argument's storage but on no logical element of any argument (a
#: gap of a strided view such as ``x[:, ::2]``): memory-safe, so it ran as written
OOB_OUTSIDE_VIEW = "outside view"


@dataclass
class TensorInfo:
    name: str  # argument name from the kernel signature ("arg[1]" inside a tuple argument)
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # in elements
    dtype: str  # "float32", "float16", ...
    storage_offset: int  # in elements
    element_size: int  # bytes

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


@dataclass
class AccessTable:
    program: np.ndarray  # int32 [E]: linear program id
    op: np.ndarray  # int8 [E]: OP_LOAD / OP_STORE / OP_ATOMIC
    tensor: np.ndarray  # int16 [E]: index into Trace.tensors, -1 when no lane hit a tensor
    line: np.ndarray  # int32 [E]: source line in Trace.source_file (the kernel's line; -1 unknown)
    iters: np.ndarray  # int32 [E, n_loops]: iteration of each loop (see module doc); -1 = outside
    n_active: np.ndarray  # int32 [E]: in-bounds, unmasked lanes
    n_masked: np.ndarray  # int32 [E]: lanes switched off by the mask
    n_oob: np.ndarray  # int32 [E]: unmasked lanes on no logical element of any argument
    lane_start: np.ndarray  # int64 [E]
    elements: np.ndarray  # int32 [L] (int64 when a tensor has >= 2**31 elements): logical flat
    #                        element indices of active lanes

    def __len__(self) -> int:
        return int(self.program.shape[0])

    def lanes(self, e: int) -> np.ndarray:
        s = int(self.lane_start[e])
        return self.elements[s: s + int(self.n_active[e])]

    def lane_programs(self) -> np.ndarray:
        """int32 [L]: the program of every lane (expanded on demand, not stored)."""
        return np.repeat(self.program, self.n_active)


@dataclass
class OOBRecord:
    program: int
    op: str
    line: int
    count: int  # lanes, summed over the accesses of this program at this line
    nearest_tensor: str  # the argument whose storage is closest to the bad addresses ("" if none)
    example_offsets: tuple[int, ...]  # element offsets from that tensor's first element (a few)
    kind: str = OOB_OUTSIDE_STORAGE  # or OOB_OUTSIDE_VIEW


@dataclass
class TensorMaps:
    """Per-element maps for one tensor, each of shape ``TensorInfo.shape``.

    Writes are stores and atomics; reads are loads (an atomic's read is not counted as a read)."""

    writer: np.ndarray  # int32: the program that wrote the element, NO_PROGRAM or SEVERAL
    reader: np.ndarray  # int32: the program that loaded it, NO_PROGRAM or SEVERAL
    n_reads: np.ndarray  # int32: how many loads touched it (reuse)
    n_writes: np.ndarray  # int32: how many stores and atomics touched it
    n_readers: np.ndarray  # int32: how many distinct programs loaded it
    n_atomic: np.ndarray | None = None  # int32: how many of the writes were atomics (None: no atomics)
    #: int32: the program whose load of the element came last — on the GPU the last to arrive, so a
    #: program of the last wave that read it (matmul's A row band: its group's; B: the last group's)
    #: — -1 where never read; None where not recorded (the interpreter's traces name every reader
    #: in their per-access events instead)
    last_reader: np.ndarray | None = None

    @property
    def never_written(self) -> np.ndarray:
        return self.n_writes == 0

    @property
    def multiply_written(self) -> np.ndarray:
        """Written by more than one program, at least once by a plain store (atomics that
        several programs accumulate into are not a conflict)."""
        several = self.writer == SEVERAL
        if self.n_atomic is None:
            return several
        return several & (self.n_atomic < self.n_writes)


@dataclass
class ProgramStats:
    """Indexed by position in ``Trace.programs``. Atomics count as both loaded and stored bytes."""

    bytes_loaded: np.ndarray  # int64 [P]
    bytes_stored: np.ndarray  # int64 [P]
    masked_fraction: np.ndarray  # float32 [P]: masked lanes / all lanes over the program's accesses
    n_oob: np.ndarray  # int32 [P]


@dataclass(frozen=True)
class Window:
    """Which programs to run: linear ids ``[start, stop)``, or a box of x/y/z ranges (half-open;
    ``None`` = the whole axis). ``Window.parse`` reads the CLI forms ``A:B`` and ``x0:x1,y0:y1``."""

    start: int | None = None
    stop: int | None = None
    x: tuple[int, int] | None = None
    y: tuple[int, int] | None = None
    z: tuple[int, int] | None = None

    @property
    def is_box(self) -> bool:
        return self.x is not None or self.y is not None or self.z is not None

    @classmethod
    def parse(cls, text: str) -> Window:
        """``"A:B"`` → linear ids A..B-1; ``"x0:x1,y0:y1[,z0:z1]"`` → a box. Raises ValueError."""
        parts = [p.strip() for p in str(text).split(",")]
        spans = []
        for p in parts:
            m = re.fullmatch(r"(\d*)\s*:\s*(\d*)", p)
            if not m:
                raise ValueError(f"bad window {text!r}: expected A:B or x0:x1,y0:y1")
            spans.append((int(m.group(1)) if m.group(1) else None, int(m.group(2)) if m.group(2) else None))
        if len(spans) == 1:
            return cls(start=spans[0][0], stop=spans[0][1])
        if len(spans) > 3:
            raise ValueError(f"bad window {text!r}: at most three ranges (x, y, z)")
        axes = [(a if a is not None else 0, b if b is not None else 1 << 31) for a, b in spans]
        axes += [None] * (3 - len(axes))
        return cls(x=axes[0], y=axes[1], z=axes[2])

    def pids(self, grid: tuple[int, int, int]) -> np.ndarray:
        """int32: the linear ids of the window's programs in dispatch order. Raises ValueError
        when the window holds none of the grid's programs."""
        gx, gy, gz = grid
        total = gx * gy * gz
        if self.is_box:
            rx, ry, rz = (self._clip(r, g) for r, g in zip((self.x, self.y, self.z), grid, strict=True))
            xs, ys, zs = np.arange(*rx), np.arange(*ry), np.arange(*rz)
            pids = (xs[None, None, :] + gx * (ys[None, :, None] + gy * zs[:, None, None])).ravel()
        else:
            a = 0 if self.start is None else max(0, self.start)
            b = total if self.stop is None else min(total, self.stop)
            pids = np.arange(a, max(a, b))
        if pids.size == 0:
            raise ValueError(f"the window {self.text()} holds none of the grid's {total} programs "
                             f"(grid {gx}x{gy}x{gz})")
        return pids.astype(np.int32)

    @staticmethod
    def _clip(r: tuple[int, int] | None, g: int) -> tuple[int, int]:
        if r is None:
            return 0, g
        return max(0, r[0]), min(g, r[1])

    def text(self) -> str:
        if self.is_box:
            axes = [self.x, self.y, self.z]
            while axes[-1] is None:
                axes.pop()
            return ",".join(":" if r is None else f"{r[0]}:{r[1]}" for r in axes)
        return f"{'' if self.start is None else self.start}:{'' if self.stop is None else self.stop}"

    def describe(self, grid: tuple[int, int, int]) -> str | None:
        """None when the window covers the whole grid; else the text ``Trace.window`` carries."""
        pids = self.pids(grid)
        total = grid[0] * grid[1] * grid[2]
        if pids.size == total:
            return None
        if self.is_box:
            x, y, z = program_xyz(pids, grid)
            box = f"x {x.min()}..{x.max()}, y {y.min()}..{y.max()}"
            if grid[2] > 1:
                box += f", z {z.min()}..{z.max()}"
            return f"programs {box} ({pids.size} of {total})"
        return f"programs {int(pids[0])}..{int(pids[-1])} of {total}"


@dataclass
class Trace:
    kernel: str
    values: dict[str, Any]  # the run's parameter values
    grid: tuple[int, int, int]
    programs: np.ndarray  # int32 [P]: linear ids of the programs that ran (all, or the window)
    window: str | None  # None when every program ran; else e.g. "programs 0..255 of 4096"
    tensors: list[TensorInfo]
    scalars: dict[str, Any]
    constexprs: dict[str, Any]
    events: AccessTable
    oob: list[OOBRecord]
    maps: list[TensorMaps]  # parallel to tensors
    stats: ProgramStats  # indexed by position in ``programs``
    source: str
    source_file: str
    source_first_line: int
    loop_lines: list[int] = field(default_factory=list)  # source line of each loop (source order)
    loop_parents: list[int] = field(default_factory=list)  # enclosing loop of each loop, -1 = none
    n_sms: int = 132
    programs_per_sm: int = 1
    wave: np.ndarray | None = None  # int32 [P]: wave of each program = pid // (n_sms*programs_per_sm)
    triton_version: str = ""
    record_s: float = 0.0
    derive_s: float = 0.0
    launch_index: int = 0  # which launch of the launcher this is (0 = the first)
    kernel_fn: str = ""  # the @triton.jit function's name
    workers: int = 1  # processes that recorded it (parts of the grid run in forked children)

    @property
    def n_programs(self) -> int:
        return int(self.grid[0] * self.grid[1] * self.grid[2])

    def pid_xyz(self, pid: int) -> tuple[int, int, int]:
        return program_xyz(pid, self.grid)

    def tensor_index(self, name: str) -> int:
        for i, t in enumerate(self.tensors):
            if t.name == name:
                return i
        raise KeyError(f"no tensor argument {name!r} (have {', '.join(t.name for t in self.tensors)})")

    def maps_of(self, name: str) -> TensorMaps:
        return self.maps[self.tensor_index(name)]

    @property
    def programs_per_wave(self) -> int:
        return max(1, self.n_sms * self.programs_per_sm)


@dataclass
class TraceRequest:
    """What the GUI sends the worker to trace one launch of a registered kernel."""

    kernel: str
    values: dict[str, Any] = field(default_factory=dict)  # parameter name -> value (str or typed)
    seed: int = 0
    window: str | None = None  # Window.parse text ("0:256", "0:8,0:4"); None = every program
    user_file: str | None = None  # a user's kernel file that registers the spec
    generation: int = 0
    n_sms: int = 132
    programs_per_sm: int = 1
    workers: int | None = None  # recording processes; None = as many as useful (Linux), 1 = in-process
    check_overflow: bool = False  # a debug run: int32 overflow and tl.device_assert raise
    #: "interpreter": replay on the CPU; "gpu": the instrumented build records every program's
    #: maps on the GPU (``kernels.gpu_trace``; ``window`` then picks the programs whose per-access
    #: events the interpreter adds). ``kernels.engine.trace_router.serve_trace`` routes on it.
    backend: str = INTERPRETER
    timeline: bool = False  # gpu: also the schedule (SM, start, end per program) of a light build
    maps: bool = True  # gpu: False with ``timeline``: the schedule only (no maps)
    compare: bool = False  # gpu: run the launch under the interpreter too and compare the outputs


@dataclass
class TraceResult:
    """The worker's answer: ``trace`` or ``error`` (an ``kernels.data.results.ErrorInfo``)."""

    request: TraceRequest
    trace: Trace | None = None
    error: Any = None  # kernels.data.results.ErrorInfo
