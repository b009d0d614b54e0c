"""The trace model: what the tracer records and the grid view draws — numpy only, no torch/triton.

One ``Trace`` per launch. Access events are stored columnar (one numpy array per field, one row
per event) and the active lanes of all events are concatenated in ``AccessTable.elements``; an
event's lanes are ``elements[lane_start[e] : lane_start[e] + n_active[e]]``. Element indices are
*logical* flat (row-major) indices into the tensor's shape, obtained through its strides.

Program ids are linear in dispatch order, x fastest: ``pid = x + gx * (y + gy * z)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["OP_LOAD", "OP_STORE", "OP_ATOMIC", "OP_NAMES", "TensorInfo", "AccessTable", "OOBRecord",
           "TensorMaps", "ProgramStats", "Trace", "NO_PROGRAM", "SEVERAL"]

OP_LOAD, OP_STORE, OP_ATOMIC = 0, 1, 2
OP_NAMES = ("load", "store", "atomic")
NO_PROGRAM = -1  # in writer/reader maps: no program touched the element
SEVERAL = -2  # in writer/reader maps: more than one program did


@dataclass
class TensorInfo:
    name: str  # argument name from the kernel signature
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
    line: np.ndarray  # int32 [E]: source line in Trace.source_file
    iters: np.ndarray  # int32 [E, D]: loop iteration vector, outermost first; -1 = not in that loop
    n_active: np.ndarray  # int32 [E]: in-bounds, unmasked lanes
    n_masked: np.ndarray  # int32 [E]: lanes switched off by the mask
    n_oob: np.ndarray  # int32 [E]: unmasked lanes whose address lies in no argument's storage
    lane_start: np.ndarray  # int64 [E]
    elements: np.ndarray  # int64 [L]: logical flat element indices of active lanes

    def __len__(self) -> int:
        return int(self.program.shape[0])

    def lanes(self, e: int) -> np.ndarray:
        s = int(self.lane_start[e])
        return self.elements[s: s + int(self.n_active[e])]


@dataclass
class OOBRecord:
    program: int
    op: str
    line: int
    count: int
    nearest_tensor: str  # the argument whose storage is closest to the bad addresses ("" if none)
    example_offsets: tuple[int, ...]  # element offsets relative to that tensor's storage (a few)


@dataclass
class TensorMaps:
    """Per-element maps for one tensor, each of shape ``TensorInfo.shape``."""

    writer: np.ndarray  # int32: the program that stored the element, NO_PROGRAM or SEVERAL
    reader: np.ndarray  # int32: the program that loaded it, NO_PROGRAM or SEVERAL
    n_reads: np.ndarray  # int32: how many loads touched it (reuse)
    n_writes: np.ndarray  # int32: how many stores touched it
    n_readers: np.ndarray  # int32: how many distinct programs loaded it

    @property
    def never_written(self) -> np.ndarray:
        return self.n_writes == 0

    @property
    def multiply_written(self) -> np.ndarray:
        return self.writer == SEVERAL


@dataclass
class ProgramStats:
    bytes_loaded: np.ndarray  # int64 [P]
    bytes_stored: np.ndarray  # int64 [P]
    masked_fraction: np.ndarray  # float32 [P]: masked lanes / all lanes over the program's accesses
    n_oob: np.ndarray  # int32 [P]


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
    loop_lines: list[int] = field(default_factory=list)  # source line of each loop (depth order)
    n_sms: int = 132
    programs_per_sm: int = 1
    wave: np.ndarray | None = None  # int32 [P]: wave of each program = pid // (n_sms*programs_per_sm)
    triton_version: str = ""
    record_s: float = 0.0
    derive_s: float = 0.0

    @property
    def n_programs(self) -> int:
        return int(self.grid[0] * self.grid[1] * self.grid[2])

    def pid_xyz(self, pid: int) -> tuple[int, int, int]:
        gx, gy, _ = self.grid
        return pid % gx, (pid // gx) % gy, pid // (gx * gy)
