"""The shadow buffers of one recorded launch, and what they turn into — torch on the launch's
device (the GPU), so that only reduced maps travel to the host.

``Recording.allocate(tensors, n_programs, device, ...)`` lays the tensors' views end to end in one
shadow index space (``S`` elements) and allocates, on ``device``:

- ``maps``: int32 ``[n_maps, S]`` (``device.MAP_NAMES``), last-reader/writer at -1, the rest 0;
- ``stats``: int64 ``[P, N_STATS]``; ``oob``: int64 records; ``timeline``: int64 ``[P, 4]``;
- ``tiles``: int64 tile records (``device.TILE_*``), folded into ``maps`` before they are first
  read (``tiles.fold``);
- ``meta``: the int64 table ``device.record`` reads (address ranges, shadow bases).

After the launch, ``tensor_maps(t)`` gives tensor ``t``'s ``TensorMaps`` (its logical elements
through its strides: ``as_strided`` over its shadow slice), reduced by blocks on the device when it
has more than ``max_elements`` elements, ``region(t, index)`` a part of it at full resolution,
``program_stats()``, ``oob_records()`` and ``schedule()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ..data.trace import (
    NO_PROGRAM,
    OOB_OUTSIDE_STORAGE,
    OOB_OUTSIDE_VIEW,
    OP_NAMES,
    SEVERAL,
    OOBRecord,
    ProgramStats,
    TensorMaps,
)
from ..interp import TensorArg
from ..run.check import block_max, map_stride
from . import device as dev
from . import tiles as tiles_

__all__ = ["Recording"]


@dataclass
class _Raw:
    """One tensor's raw shadow maps over its logical elements (views, no copies)."""

    n_reads: torch.Tensor
    last_reader: torch.Tensor
    reader_changes: torch.Tensor
    n_writes: torch.Tensor
    last_writer: torch.Tensor
    writer_changes: torch.Tensor
    n_atomic: torch.Tensor | None

    def index(self, idx: Any) -> _Raw:
        return _Raw(*(None if v is None else v[idx] for v in vars(self).values()))


def _owner(count: torch.Tensor, changes: torch.Tensor, last: torch.Tensor) -> torch.Tensor:
    """The one program that touched an element, NO_PROGRAM or SEVERAL (from the touches and the
    changes of the last toucher from one program to another: none = one program)."""
    return torch.where(count == 0, NO_PROGRAM, torch.where(changes == 0, last, SEVERAL)).to(torch.int32)


def _block_min(t: torch.Tensor, stride: tuple[int, ...]) -> torch.Tensor:
    return -block_max(-t, stride)


def _owner_reduced(owner: torch.Tensor, stride: tuple[int, ...]) -> torch.Tensor:
    """A block's owner: its first element's, but SEVERAL when any element of it is (so a shared
    element is never hidden by the reduction)."""
    first = owner[tuple(slice(None, None, s) for s in stride)]
    several = block_max((owner == SEVERAL).to(torch.int8), stride).bool()
    return torch.where(several, torch.full_like(first, SEVERAL), first)


class Recording:
    """The buffers of one instrumented launch (see the module doc)."""

    def __init__(self, tensors: list[TensorArg], n_programs: int, device: str, n_maps: int,
                 with_maps: bool = True) -> None:
        self.tensors = tensors
        self.n_programs = int(n_programs)
        self.device = device
        sizes = [(a.max_off - a.min_off + 1) if a.info.numel else 0 for a in tensors]
        self.bases = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64) if sizes else np.zeros(0, np.int64)
        self.S = int(sum(sizes))
        self.n_maps = n_maps if with_maps else 0
        meta = np.zeros((1 + len(tensors), dev.META_ROW), np.int64)
        meta[0, 0] = self.S
        for i, a in enumerate(tensors):
            es = a.info.element_size
            meta[1 + i, :6] = (a.lo, a.hi - a.lo, a.storage_ptr, a.storage_nbytes, self.bases[i], es.bit_length() - 1)
        #: does some view not cover its whole storage (then device.record checks storages apart)?
        self.check_storage = any(a.info.numel and (a.lo, a.hi) != (a.storage_ptr, a.storage_ptr + a.storage_nbytes)
                                 for a in tensors)
        self.meta = torch.from_numpy(meta.ravel()).to(device)
        self.maps = (torch.zeros((self.n_maps, self.S), dtype=torch.int32, device=device) if self.n_maps
                     else torch.zeros(1, dtype=torch.int32, device=device))  # a real (unused) pointer
        if self.n_maps:
            self.maps[dev.MAP_NAMES.index("last_reader")] = -1
            self.maps[dev.MAP_NAMES.index("last_writer")] = -1
        rows = self.n_programs if with_maps else 1
        self.stats = torch.zeros((rows, dev.N_STATS), dtype=torch.int64, device=device)
        self.oob = torch.zeros(dev.OOB_HEADER + dev.OOB_CAP * dev.OOB_ROW if with_maps else 1,
                               dtype=torch.int64, device=device)
        self.timeline = torch.zeros((self.n_programs, dev.TIMELINE_ROW), dtype=torch.int64, device=device)
        per = tiles_.per_program(self.S, self.n_programs) if with_maps else 0
        self.tiles = torch.zeros(dev.TILE_HEADER + self.n_programs * per * dev.TILE_ROW, dtype=torch.int64,
                                 device=device)
        self.tiles[1] = per
        self.n_tiles: int | None = None  # tile records folded into maps (None: not yet)
        #: the tile records, kept by ``fold`` for ``footprints.tile_events`` (None: not folded, or dropped)
        self.records: torch.Tensor | None = None
        self.passes = 1  # launches of the maps build (service._maps_passes)

    def flags(self) -> int:
        """The access sites that met an access with no per-lane path compiled in (``device.TILE_FLAGS``)."""
        return int(self.tiles[dev.TILE_FLAGS]) if self.n_maps else 0

    def reset(self) -> None:
        """Every buffer as before the first launch."""
        for buf in (self.maps, self.stats, self.oob, self.timeline):
            buf.zero_()
        if self.n_maps:
            self.maps[dev.MAP_NAMES.index("last_reader")] = -1
            self.maps[dev.MAP_NAMES.index("last_writer")] = -1
        self.tiles[dev.TILE_FLAGS] = 0
        self.n_tiles = None

    @staticmethod
    def nbytes_needed(tensors: list[TensorArg], n_programs: int, n_maps: int) -> int:
        s = sum((a.max_off - a.min_off + 1) if a.info.numel else 0 for a in tensors)
        per = tiles_.per_program(s, n_programs)
        folding = (20 * s + 8 * dev.TILE_ROW * per * n_programs) if n_maps else 0  # tiles + fold's temporaries
        return 4 * n_maps * s + 8 * n_programs * (dev.N_STATS + dev.TIMELINE_ROW) + folding

    @property
    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (self.meta, self.maps, self.stats, self.oob, self.timeline,
                                                                self.tiles))

    def kwargs(self, time: bool) -> dict[str, Any]:
        """The instrumented kernel's extra arguments (``rewrite.KERNEL_PARAMS`` and constexprs)."""
        return {"_ts_meta": self.meta, "_ts_maps": self.maps, "_ts_stats": self.stats, "_ts_oob": self.oob,
                "_ts_tiles": self.tiles, "_ts_timeline": self.timeline,
                "_TS_TABLE": 2 * len(self.tensors) + int(self.check_storage), "_TS_LANES": -1, "_TS_TIME": bool(time)}

    def release(self) -> None:
        for name in ("meta", "maps", "stats", "oob", "timeline", "tiles"):
            setattr(self, name, torch.zeros(0))
        self.records = None

    # -- maps ------------------------------------------------------------------------------------
    def fold(self) -> int:
        """Fold the tile records into the maps (once; later calls do nothing): the records folded."""
        if self.n_tiles is None:
            claimed = self.stats[:, 4].clamp(max=int(self.tiles[1]))
            self.records = tiles_.claimed_rows(self.tiles, self.n_programs, claimed) if self.n_maps else None
            self.n_tiles = tiles_.fold(self.tiles, self.maps, self.n_programs, claimed, self.records) if self.n_maps else 0
            self.tiles = self.tiles[:dev.TILE_HEADER].clone()  # the records live on in ``records`` only
        return self.n_tiles

    def _raw(self, t: int) -> _Raw:
        self.fold()
        info = self.tensors[t].info
        base = int(self.bases[t])

        def view(m: int) -> torch.Tensor:
            flat = self.maps[m].narrow(0, base, max(1, self.tensors[t].max_off + 1) if info.numel else 0)
            return flat.as_strided(info.shape, info.strides) if info.numel else flat.reshape(info.shape)

        maps = [view(m) for m in range(min(self.n_maps, 6))]
        atomic = view(6) if self.n_maps > 6 else None
        return _Raw(*maps, atomic)

    @staticmethod
    def _derive(raw: _Raw) -> dict[str, torch.Tensor | None]:
        n_atomic = raw.n_atomic
        if n_atomic is not None and not bool((n_atomic != 0).any()):
            n_atomic = None  # the tensor saw no atomics (as the interpreter recorder says it)
        return {"writer": _owner(raw.n_writes, raw.writer_changes, raw.last_writer),
                "reader": _owner(raw.n_reads, raw.reader_changes, raw.last_reader),
                "n_reads": raw.n_reads.to(torch.int32), "n_writes": raw.n_writes.to(torch.int32),
                "n_readers": ((raw.n_reads > 0).to(torch.int32) + raw.reader_changes).to(torch.int32),
                "n_atomic": None if n_atomic is None else n_atomic.to(torch.int32),
                # the last read to arrive: tells the waves apart where every element has many readers
                "last_reader": torch.where(raw.n_reads > 0, raw.last_reader, -1).to(torch.int32)}

    @staticmethod
    def _host(d: dict[str, torch.Tensor | None]) -> TensorMaps:
        return TensorMaps(**{k: None if v is None else v.contiguous().cpu().numpy() for k, v in d.items()})

    def stride_for(self, t: int, max_elements: int | None) -> tuple[int, ...]:
        shape = self.tensors[t].info.shape
        if not max_elements or not shape or self.tensors[t].info.numel <= max_elements:
            return ()
        return map_stride(shape, int(max_elements))

    def tensor_maps(self, t: int, max_elements: int | None = None) -> tuple[TensorMaps, tuple[int, ...]]:
        """Tensor ``t``'s maps, and the block each cell stands for (() = full resolution).

        Reduced maps: writer/reader = the block's first element's, SEVERAL if any element of the
        block is; n_reads / n_readers = the block's maximum; n_writes / n_atomic = its minimum (so
        an unwritten element shows)."""
        d = self._derive(self._raw(t))
        stride = self.stride_for(t, max_elements)
        if stride:
            d = {"writer": _owner_reduced(d["writer"], stride), "reader": _owner_reduced(d["reader"], stride),
                 "n_reads": block_max(d["n_reads"], stride), "n_writes": _block_min(d["n_writes"], stride),
                 "n_readers": block_max(d["n_readers"], stride),
                 "n_atomic": None if d["n_atomic"] is None else _block_min(d["n_atomic"], stride),
                 "last_reader": block_max(d["last_reader"], stride)}
        return self._host(d), stride

    def region(self, t: int, index: tuple[slice | int, ...]) -> TensorMaps:
        """Tensor ``t``'s maps over ``index`` (a tuple of slices/ints into its shape), at full resolution."""
        return self._host(self._derive(self._raw(t).index(index)))

    # -- per program -------------------------------------------------------------------------------
    def program_stats(self) -> ProgramStats:
        s = self.stats.cpu().numpy()
        lanes = (s[:, 2] & 0xFFFFFFFF).astype(np.float64)  # device.STAT_NAMES: lanes + (masked << 32)
        frac = np.divide(s[:, 2] >> 32, lanes, out=np.zeros(lanes.size), where=lanes > 0)
        return ProgramStats(bytes_loaded=s[:, 0].copy(), bytes_stored=s[:, 1].copy(),
                            masked_fraction=frac.astype(np.float32), n_oob=s[:, 3].astype(np.int32))

    def oob_records(self) -> tuple[list[OOBRecord], int]:
        """The out-of-bounds records (grouped by program, op, line and kind) and how many accesses
        had bad lanes (more than ``device.OOB_CAP`` are counted, not kept)."""
        raw = self.oob.cpu().numpy()
        n = int(raw[0])
        recs = raw[dev.OOB_HEADER:].reshape(-1, dev.OOB_ROW)[:min(n, dev.OOB_CAP)]
        groups: dict[tuple, list] = {}
        for pid, op, line, n_out, n_view, first, _, _ in recs.tolist():
            for kind, count in ((OOB_OUTSIDE_STORAGE, n_out), (OOB_OUTSIDE_VIEW, n_view)):
                if count <= 0:
                    continue
                t = self._nearest(first)
                key = (pid, op, line, kind, t)
                if key in groups:
                    groups[key][0] += count
                    continue
                ex: tuple[int, ...] = ()
                if t >= 0:
                    a = self.tensors[t]
                    ex = ((first - a.data_ptr) // a.info.element_size,)
                groups[key] = [count, ex]
        out = [OOBRecord(program=k[0], op=OP_NAMES[k[1]], line=k[2], count=v[0],
                         nearest_tensor=self.tensors[k[4]].info.name if k[4] >= 0 else "", example_offsets=v[1],
                         kind=k[3]) for k, v in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1]))]
        return out, n

    def _nearest(self, addr: int) -> int:
        """The tensor whose storage is closest to ``addr`` (-1 without tensors)."""
        best, best_d = -1, None
        for t, a in enumerate(self.tensors):
            lo, hi = a.storage_ptr, a.storage_ptr + a.storage_nbytes
            d = max(lo - addr, addr - hi + 1, 0)
            if best_d is None or d < best_d:
                best, best_d = t, d
        return best

    def schedule(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(SM int32, start ns, end ns), times from the earliest start."""
        tl_ = self.timeline.cpu().numpy()
        t0 = int(tl_[:, 0].min()) if tl_.size else 0
        return tl_[:, 2].astype(np.int32), tl_[:, 0] - t0, tl_[:, 1] - t0
