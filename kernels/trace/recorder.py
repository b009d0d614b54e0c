"""The recorder: run a launch under the interpreter with every load and store observed.

``trace_launch(launch, ...)`` calls ``launch(K)``; the launcher does what it always does,
``K(jit_fn)[grid](*args, **kwargs)``, and the recording ``K`` replays that launch program by
program (or a window of them) under Triton's interpreter, with

- the kernel's loops counted (``loops.LoopInstrumenter``) so each access knows its iteration;
- every access reported by the builder hooks (``_interp.hooks``): the raw addresses of its active
  lanes are appended as one numpy array per event, and out-of-bounds lanes (addresses in no
  argument's storage) are recorded and switched off before memory is touched;
- the source line taken from the kernel's own frame.

At the end the addresses are mapped, vectorized, to (tensor, logical element) through each
tensor's storage offset and strides, and ``maps.derive`` computes the per-element maps.

``trace_spec(spec, values)`` does this for a registered kernel (inputs built on the CPU, outputs
poisoned with NaN); ``trace(request)`` serves the worker pipe.
"""

from __future__ import annotations

import sys
import threading
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InterpreterFault
from . import _interp
from .errors import TraceCancelled, TraceUnsupported
from .loops import LOOPS_NAME, LoopInstrumenter, LoopState
from .maps import derive, waves
from .model import (
    OOB_OUTSIDE_STORAGE,
    OOB_OUTSIDE_VIEW,
    OP_NAMES,
    AccessTable,
    OOBRecord,
    TensorInfo,
    Trace,
    TraceRequest,
    TraceResult,
    Window,
)

__all__ = ["trace_launch", "trace_spec", "trace", "RecordingK", "Progress", "Cancel"]

Progress = Callable[[str, float], Any]
Cancel = Callable[[], bool]

_PROGRESS_EVERY_S = 0.1  # progress at a modest rate: the worker throttles further


# ---------------------------------------------------------------------------------------------
# tensor arguments


@dataclass
class _Arg:
    """A tensor argument with the addresses needed to turn its lanes into logical indices."""

    info: TensorInfo
    data_ptr: int  # address of logical element 0
    storage_ptr: int
    storage_nbytes: int
    min_off: int  # lowest / highest element offset of a logical element, relative to data_ptr
    max_off: int
    contiguous: bool  # row-major contiguous: logical index = element offset
    _inverse: np.ndarray | None = field(default=None, repr=False)

    @property
    def lo(self) -> int:  # first byte of the view's footprint
        return self.data_ptr + self.min_off * self.info.element_size

    @property
    def hi(self) -> int:  # one past its last byte
        return self.data_ptr + (self.max_off + 1) * self.info.element_size

    def inverse(self) -> np.ndarray:
        """int64 [max_off - min_off + 1]: element offset - min_off -> logical flat index, -1 where
        no logical element lives (gaps of strided views). Stride-0 (broadcast) dimensions map
        several logical elements to one offset; the last one is kept."""
        if self._inverse is None:
            offs = np.zeros((), dtype=np.int64)
            for n, s in zip(self.info.shape, self.info.strides, strict=True):
                offs = offs[..., None] + np.arange(n, dtype=np.int64) * s
            inv = np.full(self.max_off - self.min_off + 1, -1, dtype=np.int64)
            inv[offs.ravel() - self.min_off] = np.arange(self.info.numel, dtype=np.int64)
            self._inverse = inv
        return self._inverse


def _dtype_name(dt: Any) -> str:
    return str(dt).replace("torch.", "")


def _tensor_arg(name: str, value: Any) -> _Arg | None:
    base = getattr(value, "base", None) if type(value).__name__ == "TensorWrapper" else value
    if base is None or not hasattr(base, "untyped_storage") or not hasattr(base, "stride"):
        return None
    if base.device.type != "cpu":
        raise ValueError(f"argument {name!r} is on {base.device}; the tracer runs on the CPU — "
                         "build the inputs on device 'cpu'")
    shape = tuple(int(s) for s in base.shape)
    strides = tuple(int(s) for s in base.stride())
    esize = int(base.element_size())
    storage = base.untyped_storage()
    if any(s < 0 for s in strides):  # torch has none; guard anyway
        raise ValueError(f"argument {name!r} has a negative stride")
    numel = int(np.prod(shape)) if shape else 1
    max_off = sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if numel else 0
    dtype = _dtype_name(value.dtype) if value is not base else _dtype_name(base.dtype)
    info = TensorInfo(name=name, shape=shape, strides=strides, dtype=dtype,
                      storage_offset=int(base.storage_offset()), element_size=esize)
    return _Arg(info, int(base.data_ptr()), int(storage.data_ptr()), int(storage.nbytes()), 0, int(max_off),
                bool(base.is_contiguous()))


def _collect_args(bound: dict[str, Any], consts: set[str]) -> tuple[list[_Arg], dict[str, Any], dict[str, Any]]:
    tensors: list[_Arg] = []
    scalars: dict[str, Any] = {}
    constexprs: dict[str, Any] = {}

    def walk(name: str, value: Any) -> bool:
        arg = _tensor_arg(name, value)
        if arg is not None:
            tensors.append(arg)
            return True
        if isinstance(value, tuple) and value:
            found = [walk(f"{name}[{i}]", v) for i, v in enumerate(value)]
            return any(found)
        if _is_descriptor(value):  # a TensorDescriptor: its loads and stores address its base
            return walk(f"{name}.base", value.base)
        return False

    for name, value in bound.items():
        if name in consts:
            constexprs[name] = _plain(value)
        elif not walk(name, value):
            scalars[name] = _plain(value)
    return tensors, scalars, constexprs


def _is_descriptor(v: Any) -> bool:
    return hasattr(v, "block_shape") and hasattr(getattr(v, "base", None), "untyped_storage")


def _plain(v: Any) -> Any:
    """A picklable, torch/triton-free form of an argument value."""
    v = getattr(v, "value", v) if type(v).__name__ == "constexpr" else v
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    return str(v)


# ---------------------------------------------------------------------------------------------
# the hot path


class _Recorder:
    """Appends one row of Python scalars and one numpy array per access; nothing per lane."""

    def __init__(self, args: list[_Arg], loops: LoopState) -> None:
        # merged storage intervals of all arguments: an address outside them is out of bounds
        spans = sorted((a.storage_ptr, a.storage_ptr + a.storage_nbytes) for a in args if a.storage_nbytes)
        merged: list[list[int]] = []
        for lo, hi in spans:
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self.starts_l = [s for s, _ in merged]
        self.ends_l = [e for _, e in merged]
        self.starts = np.array(self.starts_l, dtype=np.uint64)
        self.ends = np.array(self.ends_l, dtype=np.uint64)
        self.loops = loops
        self.code: Any = None  # the rewritten kernel's code object: its frame gives the line
        self.pid = -1
        self.ev_prog: list[int] = []
        self.ev_op: list[int] = []
        self.ev_line: list[int] = []
        self.ev_iters: list[tuple[int, ...]] = []
        self.ev_masked: list[int] = []
        self.ev_hint: list[int] = []  # first lane's address: names the tensor of a fully masked access
        self.addrs: list[np.ndarray] = []  # per event: uint64 addresses of unmasked in-storage lanes
        self.oob_ev: list[int] = []
        self.oob_addrs: list[np.ndarray] = []

    def on_access(self, op: int, ptrs: np.ndarray, mask: np.ndarray | None) -> np.ndarray | None:
        p = ptrs
        if mask is None:
            act = p.ravel().copy()
            n_masked = 0
        else:
            if mask.shape != p.shape:
                mask = np.broadcast_to(mask, p.shape)
            act = p[mask]
            n_masked = p.size - act.size
        off = None
        if act.size:
            lo = int(act.min())
            i = bisect_right(self.starts_l, lo) - 1
            if i < 0 or int(act.max()) >= self.ends_l[i]:  # not all inside one storage: check lanes
                idx = np.searchsorted(self.starts, act, side="right") - 1
                inside = (idx >= 0) & (act < self.ends[np.maximum(idx, 0)])
                if not inside.all():
                    self.oob_ev.append(len(self.ev_prog))
                    self.oob_addrs.append(act[~inside])
                    act = act[inside]
                    off = np.zeros(p.shape, dtype=bool)
                    if mask is None:
                        off.reshape(-1)[~inside] = True
                    else:
                        off[mask] = ~inside
        f = sys._getframe(1)
        code = self.code
        while f is not None and f.f_code is not code:
            f = f.f_back
        self.ev_prog.append(self.pid)
        self.ev_op.append(op)
        self.ev_line.append(f.f_lineno if f is not None else -1)
        self.ev_iters.append(tuple(self.loops.cur))
        self.ev_masked.append(n_masked)
        self.ev_hint.append(int(p.flat[0]) if p.size else 0)
        self.addrs.append(act)
        return off

    def export(self, n_loops: int) -> dict[str, np.ndarray]:
        """The recording as a few flat arrays (what a forked child sends back), emptying the lists."""
        n = len(self.ev_prog)
        out = {
            "prog": np.array(self.ev_prog, dtype=np.int32),
            "op": np.array(self.ev_op, dtype=np.int8),
            "line": np.array(self.ev_line, dtype=np.int32),
            "iters": (np.array(self.ev_iters, dtype=np.int32).reshape(n, n_loops) if n_loops
                      else np.zeros((n, 0), np.int32)),
            "masked": np.array(self.ev_masked, dtype=np.int32),
            "hint": np.array(self.ev_hint, dtype=np.uint64),
            "counts": np.fromiter((a.size for a in self.addrs), dtype=np.int64, count=n),
            "addr": np.concatenate(self.addrs) if self.addrs else np.zeros(0, np.uint64),
            "oob_ev": np.array(self.oob_ev, dtype=np.int64),
            "oob_counts": np.fromiter((a.size for a in self.oob_addrs), dtype=np.int64, count=len(self.oob_addrs)),
            "oob_addr": np.concatenate(self.oob_addrs) if self.oob_addrs else np.zeros(0, np.uint64),
        }
        for lst in (self.ev_prog, self.ev_op, self.ev_line, self.ev_iters, self.ev_masked, self.ev_hint,
                    self.addrs, self.oob_ev, self.oob_addrs):
            lst.clear()
        return out


# ---------------------------------------------------------------------------------------------
# from addresses to logical elements


def _element_dtype(args: list[_Arg]) -> type:
    return np.int64 if any(a.info.numel >= 2 ** 31 for a in args) else np.int32


def _map_lanes(addr: np.ndarray, args: list[_Arg]) -> tuple[np.ndarray, np.ndarray]:
    """(tensor index int16, logical index) of every address; -1/-1 where it is on no logical
    element. When views alias, the first argument in signature order that holds the element
    wins. Logical indices are int32 unless a tensor has 2**31 elements or more."""
    n = addr.size
    tid = np.full(n, -1, dtype=np.int16)
    logical = np.full(n, -1, dtype=_element_dtype(args))
    todo: np.ndarray | None = None  # lanes not yet placed (None: all)
    for t, a in enumerate(args):
        if a.info.numel == 0:
            continue
        sub = addr if todo is None else addr[todo]
        inr = (sub >= np.uint64(a.lo)) & (sub < np.uint64(a.hi))
        del sub
        if not inr.any():
            continue
        if todo is None and inr.all():
            idx: np.ndarray | slice = slice(None)
            rest = np.zeros(0, np.int64)
        else:
            idx = np.flatnonzero(inr) if todo is None else todo[inr]
            rest = np.flatnonzero(~inr) if todo is None else todo[~inr]
        del inr
        eo = (addr[idx] - np.uint64(a.data_ptr)).view(np.int64) // a.info.element_size
        if a.contiguous:
            tid[idx] = t
            logical[idx] = eo
        else:
            li = a.inverse()[eo - a.min_off]
            ok = li >= 0
            if isinstance(idx, slice):
                idx = np.arange(n)
            tid[idx[ok]] = t
            logical[idx[ok]] = li[ok]
            if not ok.all():  # a gap of this view may be an element of another argument
                rest = np.sort(np.concatenate([rest, idx[~ok]]))
        del eo
        todo = rest
        if todo.size == 0:
            break
    return tid, logical


def _tensor_of_address(a: int, args: list[_Arg]) -> int:
    for t, arg in enumerate(args):
        if arg.lo <= a < arg.hi:
            return t
    return -1


def _nearest(a: int, args: list[_Arg]) -> int:
    """The argument whose storage is closest to address ``a`` (-1 when there are none)."""
    best, best_d = -1, None
    for t, arg in enumerate(args):
        lo, hi = arg.storage_ptr, arg.storage_ptr + arg.storage_nbytes
        d = lo - a if a < lo else (0 if a < hi else a - hi + 1)
        if best_d is None or d < best_d:
            best, best_d = t, d
    return best


@dataclass
class _Finished:
    events: AccessTable
    oob: list[OOBRecord]


def _merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One recording from the parts of several processes (in program order)."""
    if len(parts) == 1:
        return parts[0]
    out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k != "oob_ev"}
    offsets = np.cumsum([0] + [p["prog"].size for p in parts[:-1]])
    out["oob_ev"] = np.concatenate([p["oob_ev"] + off for p, off in zip(parts, offsets, strict=True)])
    return out


def _finish(parts: list[dict[str, np.ndarray]], args: list[_Arg]) -> _Finished:
    rec = _merge(parts)
    parts.clear()
    ev_prog, ev_op, ev_line, ev_masked = rec["prog"], rec["op"], rec["line"], rec["masked"]
    ev_iters, ev_hint = rec["iters"], rec["hint"]
    n_ev = ev_prog.size
    counts = rec["counts"]  # recorded (in-storage, unmasked) lanes per access
    ends = np.cumsum(counts)
    addr = rec.pop("addr")  # the addresses are the bulk of the memory; dropped once mapped
    tid, logical = _map_lanes(addr, args)

    # -- out-of-bounds lanes: outside every storage (switched off), outside every view (ran) ----
    n_oob = np.zeros(n_ev, dtype=np.int64)
    groups: dict[tuple, list] = {}

    def note(e: int, bad: np.ndarray, kind: str, tensor: int) -> None:
        key = (int(ev_prog[e]), int(ev_op[e]), int(ev_line[e]), kind, tensor)
        if key in groups:
            groups[key][0] += int(bad.size)
            return
        if tensor >= 0:
            a = args[tensor]
            ex = tuple((int(x) - a.data_ptr) // a.info.element_size for x in bad[:4].tolist())
        else:
            ex = ()
        groups[key] = [int(bad.size), ex]

    oob_starts = np.r_[0, np.cumsum(rec["oob_counts"])]
    for i, e in enumerate(rec["oob_ev"].tolist()):
        bad = rec["oob_addr"][oob_starts[i]:oob_starts[i + 1]]
        n_oob[e] += bad.size
        note(e, bad, OOB_OUTSIDE_STORAGE, _nearest(int(bad[0]), args))
    valid = tid >= 0
    n_valid = counts
    if not valid.all():
        bad_pos = np.flatnonzero(~valid)
        bad_ev = np.searchsorted(ends, bad_pos, side="right")  # the access each bad lane belongs to
        per_ev = np.bincount(bad_ev, minlength=n_ev)
        n_oob += per_ev
        n_valid = counts - per_ev
        starts = np.flatnonzero(np.r_[True, bad_ev[1:] != bad_ev[:-1]])
        for s_, t_ in zip(starts.tolist(), np.r_[starts[1:], bad_ev.size].tolist(), strict=True):
            chunk = addr[bad_pos[s_:t_]]
            note(int(bad_ev[s_]), chunk, OOB_OUTSIDE_VIEW, _nearest(int(chunk[0]), args))
        tid, logical = tid[valid], logical[valid]
    del addr, valid
    oob = [OOBRecord(program=k[0], op=OP_NAMES[k[1]], line=k[2], count=v[0],
                     nearest_tensor=args[k[4]].info.name if k[4] >= 0 else "", example_offsets=v[1], kind=k[3])
           for k, v in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1]))]

    n_t = len(args)
    lane_start = np.zeros(n_ev, dtype=np.int64)
    if n_ev:
        lane_start[1:] = np.cumsum(n_valid)[:-1]
    # does any access span several tensors? (the tensor index changes inside an access)
    changes = np.flatnonzero(tid[1:] != tid[:-1]) + 1
    mixed = bool(changes.size) and not np.isin(changes, lane_start).all()
    if not mixed:  # the usual case: one row per access
        n_active = n_valid.astype(np.int64)
        ev_tensor = np.full(n_ev, -1, dtype=np.int16)
        has = n_active > 0
        ev_tensor[has] = tid[lane_start[has]]
        row_ev = np.arange(n_ev)
        elements = logical
        first_row = np.ones(n_ev, dtype=bool)
    else:  # some access spans several tensors: one row per (access, tensor), in that order
        lane_ev = np.repeat(np.arange(n_ev, dtype=np.int64), n_valid)
        key = lane_ev * (n_t + 1) + (tid.astype(np.int64) + 1)
        del lane_ev
        order = np.argsort(key, kind="stable")
        key = key[order]
        elements = logical[order]
        runs = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, np.int64)
        uk, n_rows_lanes = key[runs], np.diff(np.r_[runs, key.size]).astype(np.int64)
        empty = np.setdiff1d(np.arange(n_ev), uk // (n_t + 1))
        all_keys = np.concatenate([uk, empty * (n_t + 1)])
        all_n = np.concatenate([n_rows_lanes, np.zeros(empty.size, np.int64)])
        o = np.argsort(all_keys, kind="stable")
        all_keys, n_active = all_keys[o], all_n[o]
        row_ev = all_keys // (n_t + 1)
        ev_tensor = (all_keys % (n_t + 1) - 1).astype(np.int16)
        lane_start = np.zeros(row_ev.size, dtype=np.int64)
        if row_ev.size:
            lane_start[1:] = np.cumsum(n_active)[:-1]
        first_row = np.r_[True, row_ev[1:] != row_ev[:-1]] if row_ev.size else np.zeros(0, bool)
    # a fully masked access still names its tensor, from the first lane's (unused) address
    for r in np.flatnonzero((ev_tensor < 0) & (n_active == 0)).tolist():
        ev_tensor[r] = _tensor_of_address(int(ev_hint[int(row_ev[r])]), args)
    events = AccessTable(
        program=ev_prog[row_ev], op=ev_op[row_ev], tensor=ev_tensor, line=ev_line[row_ev],
        iters=ev_iters[row_ev], n_active=n_active.astype(np.int32),
        n_masked=np.where(first_row, ev_masked[row_ev], 0).astype(np.int32),
        n_oob=np.where(first_row, n_oob[row_ev], 0).astype(np.int32),
        lane_start=lane_start, elements=elements)
    return _Finished(events, oob)


# ---------------------------------------------------------------------------------------------
# the recording K


class RecordingK:
    """What a launcher gets as ``K``: ``K(jit_fn)[grid](*args, **kwargs)`` replays the launch under
    the interpreter. Launch number ``launch_index`` (0-based, counting every ``K(..)[..](..)``
    call) is recorded; earlier launches run unrecorded (they may prepare inputs); later ones are
    skipped, which leaves their outputs unwritten (the trace is of one launch)."""

    def __init__(self, *, launch_index: int = 0, window: Window | None = None, n_sms: int = 132,
                 programs_per_sm: int = 1, progress: Progress | None = None, cancel: Cancel | None = None,
                 kernel: str = "", values: dict[str, Any] | None = None, workers: int | None = None,
                 check_overflow: bool = False) -> None:
        self.launch_index = launch_index
        self.workers = workers
        self.check_overflow = check_overflow
        self.window = window
        self.n_sms = n_sms
        self.programs_per_sm = programs_per_sm
        self.progress = progress
        self.cancel = cancel
        self.kernel = kernel
        self.values = dict(values or {})
        self.n_launches = 0
        self.trace: Trace | None = None

    def __call__(self, jit_fn: Any) -> _Launchable:
        if not hasattr(jit_fn, "fn") or not callable(getattr(jit_fn, "fn", None)):
            if hasattr(jit_fn, "configs"):
                raise TraceUnsupported(f"{getattr(jit_fn, '__name__', jit_fn)!r} is wrapped in "
                                       "@triton.autotune/@triton.heuristics; trace the plain @triton.jit "
                                       "function", hook="K")
            raise TraceUnsupported(f"{jit_fn!r} is not a @triton.jit function", hook="K")
        return _Launchable(self, jit_fn)

    def _launch(self, jit_fn: Any, grid: Any, args: tuple, kwargs: dict) -> None:
        i = self.n_launches
        self.n_launches += 1
        if i < self.launch_index:
            _run_plain(jit_fn, grid, args, kwargs)
        elif i == self.launch_index:
            self.trace = _record(self, jit_fn, grid, args, kwargs)


class _Launchable:
    def __init__(self, owner: RecordingK, jit_fn: Any) -> None:
        self.owner = owner
        self.jit_fn = jit_fn

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        return lambda *args, **kwargs: self.owner._launch(self.jit_fn, grid, args, kwargs)


def _bind(jit_fn: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    import inspect

    sig = inspect.signature(jit_fn.fn)
    names = set(sig.parameters)
    # launch options (num_warps, num_stages, ...) are not kernel parameters: drop them, as Triton does
    kw = {k: v for k, v in kwargs.items() if k in names}
    try:
        ba = sig.bind(*args, **kw)
    except TypeError as e:
        raise ValueError(f"arguments do not fit {jit_fn.fn.__name__}{sig}: {e}") from None
    ba.apply_defaults()
    return dict(ba.arguments)


def _grid3(grid: Any, bound: dict[str, Any]) -> tuple[int, int, int]:
    g = grid(bound) if callable(grid) else grid
    g = tuple(int(x) for x in (g if isinstance(g, (tuple, list)) else (g,)))
    if not 1 <= len(g) <= 3 or any(x < 0 for x in g):
        raise ValueError(f"bad grid {g!r}: 1 to 3 non-negative sizes")
    return (g + (1, 1))[:3]  # type: ignore[return-value]


def _interpreter_backend() -> Any:
    # the engine's interpreter backend makes the kernel's jit helpers (and tl.max, tl.cdiv …)
    # callable under the interpreter; the tracer runs kernels exactly as the engine does
    from ..backends import Backend

    return Backend("interpreter", "cpu", "CPU (Triton interpreter)")


def _kernel_error(e: BaseException, pid: int, grid: tuple[int, int, int], code: Any, name: str) -> InterpreterFault:
    line = -1
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is code:
            line = tb.tb_lineno
        tb = tb.tb_next
    gx, gy, _ = grid
    xyz = (pid % gx, (pid // gx) % gy, pid // (gx * gy))
    where = f" at line {line}" if line > 0 else ""
    cause = e.__cause__ if type(e).__name__ == "InterpreterError" and e.__cause__ else e
    msg = f"{name}: program {pid} {xyz}{where} failed under the interpreter: {type(cause).__name__}: {cause}"
    return InterpreterFault(msg.splitlines()[0][:400], detail=msg)


def _share(bound: dict[str, Any]) -> None:
    """Move every tensor argument's storage to shared memory (in place: views follow), so that
    forked children write where the parent reads."""
    def walk(v: Any) -> None:
        base = getattr(v, "base", None) if type(v).__name__ == "TensorWrapper" else v
        if hasattr(base, "share_memory_") and hasattr(base, "untyped_storage"):
            base.share_memory_()
        elif isinstance(v, tuple):
            for x in v:
                walk(x)
        elif _is_descriptor(v):
            walk(v.base)

    for v in bound.values():
        walk(v)


#: the interpreter's builder is one object per process: one trace at a time (other threads wait)
_ONE_AT_A_TIME = threading.Lock()


def _record(owner: RecordingK, jit_fn: Any, grid: Any, args: tuple, kwargs: dict) -> Trace:
    with _ONE_AT_A_TIME:
        return _record_locked(owner, jit_fn, grid, args, kwargs)


def _record_locked(owner: RecordingK, jit_fn: Any, grid: Any, args: tuple, kwargs: dict) -> Trace:
    import triton

    from . import parallel

    _interp.require()
    t0 = time.perf_counter()
    bound = _bind(jit_fn, args, kwargs)
    grid3 = _grid3(grid, bound)
    consts = _interp.constexpr_names(jit_fn)
    window = owner.window
    pids = (window or Window()).pids(grid3) if grid3[0] * grid3[1] * grid3[2] else np.zeros(0, np.int32)
    pids = np.sort(pids)
    window_text = window.describe(grid3) if window is not None and pids.size else None
    total = int(pids.size)
    workers = owner.workers if owner.workers is not None else parallel.auto_workers(total)
    workers = max(1, min(int(workers), total // 2 if total >= 2 else 1))
    if workers > 1 and not parallel.available():
        workers = 1
    if workers > 1:
        try:
            _share(bound)
        except Exception:  # noqa: BLE001 - a storage that cannot be shared: record in-process
            workers = 1
    targs, scalars, constexprs = _collect_args(bound, consts)

    instr = LoopInstrumenter()
    loops = LoopState(0)
    rec = _Recorder(targs, loops)
    progress, cancel = owner.progress, owner.cancel
    last = [time.perf_counter()]

    def report(done: int) -> None:
        now = time.perf_counter()
        if progress is not None and now - last[0] >= _PROGRESS_EVERY_S:
            last[0] = now
            progress(f"tracing {done}/{total} programs", done / max(1, total))

    name = jit_fn.fn.__name__
    with _interpreter_backend().activate([jit_fn]):
        kernel = _interp.rewrite(jit_fn, instr.visit, {LOOPS_NAME: loops})
        n_loops = len(instr.loops)
        loops.n = n_loops
        loops.reset()
        rec.code = kernel.__code__

        def describe(e: BaseException) -> tuple[str, str]:
            err = _kernel_error(e, rec.pid, grid3, kernel.__code__, name)
            return err.message, err.detail

        if progress is not None:
            progress(f"tracing 0/{total} programs", 0.0)
        with _interp.hooks(rec.on_access), \
                _interp.prepared(kernel, jit_fn, bound, grid3, check_overflow=owner.check_overflow) as run:
            if workers == 1:
                done = [0]

                def before_program(pid: int) -> None:
                    if cancel is not None and cancel():
                        raise TraceCancelled(f"trace cancelled after {done[0]} of {total} programs")
                    rec.pid = pid
                    loops.reset()
                    done[0] += 1
                    if (done[0] & 7) == 0:
                        report(done[0])

                try:
                    run(pids, before_program)
                except TraceCancelled:
                    raise
                except Exception as e:
                    message, detail = describe(e)
                    raise InterpreterFault(message, detail=detail) from e
                parts = [rec.export(n_loops)]
            else:
                def child(part: np.ndarray, tick: Callable[[int], None]) -> dict[str, np.ndarray]:
                    done = [0]

                    def before_program(pid: int) -> None:
                        rec.pid = pid
                        loops.reset()
                        done[0] += 1
                        if (done[0] & 7) == 0:
                            tick(done[0])

                    run(part, before_program)
                    return rec.export(n_loops)

                try:
                    parts = parallel.run_forked(np.array_split(pids, workers), child, on_progress=report,
                                                cancel=cancel, describe_error=describe)
                except parallel.ChildFailed as e:
                    if e.message == "cancelled":
                        raise TraceCancelled("trace cancelled while recording") from None
                    raise InterpreterFault(e.message, detail=e.detail) from None
    t1 = time.perf_counter()
    if progress is not None:
        progress("deriving maps", 1.0)
    done_ = _finish(parts, targs)
    tensors = [a.info for a in targs]
    maps, stats = derive(tensors, done_.events, pids)
    t2 = time.perf_counter()
    from ..spec import jit_source

    source, source_file, first = jit_source(jit_fn)
    return Trace(
        kernel=owner.kernel or name, values=dict(owner.values), grid=grid3, programs=pids.astype(np.int32),
        window=window_text, tensors=tensors, scalars=scalars, constexprs=constexprs, events=done_.events,
        oob=done_.oob, maps=maps, stats=stats, source=source, source_file=source_file,
        source_first_line=first, loop_lines=instr.lines, loop_parents=list(instr.parents),
        n_sms=owner.n_sms, programs_per_sm=owner.programs_per_sm,
        wave=waves(pids, owner.n_sms, owner.programs_per_sm), triton_version=triton.__version__,
        record_s=t1 - t0, derive_s=t2 - t1, launch_index=owner.launch_index, kernel_fn=name, workers=workers)


def _run_plain(jit_fn: Any, grid: Any, args: tuple, kwargs: dict) -> None:
    bound = _bind(jit_fn, args, kwargs)
    grid3 = _grid3(grid, bound)
    pids = np.arange(grid3[0] * grid3[1] * grid3[2], dtype=np.int64)
    with _ONE_AT_A_TIME, _interpreter_backend().activate([jit_fn]):
        kernel = _interp.rewrite(jit_fn)
        _interp.run_programs(kernel, jit_fn, bound, grid3, pids)


# ---------------------------------------------------------------------------------------------
# entry points


def _as_window(window: Window | str | tuple[int, int] | None) -> Window | None:
    if window is None or isinstance(window, Window):
        return window
    if isinstance(window, str):
        return Window.parse(window)
    a, b = window
    return Window(start=int(a), stop=int(b))


def trace_launch(launch: Callable[[Any], Any], *, kernel: str = "", values: dict[str, Any] | None = None,
                 window: Window | str | tuple[int, int] | None = None, n_sms: int = 132,
                 programs_per_sm: int = 1, launch_index: int = 0, progress: Progress | None = None,
                 cancel: Cancel | None = None, workers: int | None = None, check_overflow: bool = False) -> Trace:
    """Trace one launch made by ``launch(K)`` (which calls ``K(jit_fn)[grid](*args, **kwargs)``
    with CPU tensors; launch options such as ``num_warps`` are accepted and ignored).

    - ``window``: a ``Window``, its text ("0:256", "0:8,0:4") or (start, stop) of linear ids;
      only those programs run, and ``Trace.window`` says so;
    - ``n_sms`` / ``programs_per_sm``: the wave model (``Trace.wave``); H200: 132 SMs;
    - ``launch_index``: which launch of the launcher to record (earlier ones run unrecorded);
    - ``progress(stage, fraction)``: "tracing N/M programs" at most ~10 times a second, then
      "deriving maps"; ``cancel()``: polled between programs, true -> TraceCancelled;
    - ``workers``: processes recording parts of the grid (Linux, fork); None = as many as the
      CPUs allow for this grid, 1 = in this process. Tensor storages move to shared memory;
    - ``check_overflow``: a debug run: int32 overflow and ``tl.device_assert`` raise (off, as in
      the plain interpreter: arithmetic wraps as on the GPU, and faster — see ``_interp.prepared``).

    Raises TraceUnsupported (a missing interpreter hook, named), TraceCancelled,
    InterpreterFault (the kernel failed; the message names program and source line) or
    ValueError (bad arguments, window or grid)."""
    k = RecordingK(launch_index=launch_index, window=_as_window(window), n_sms=n_sms,
                   programs_per_sm=programs_per_sm, progress=progress, cancel=cancel, kernel=kernel,
                   values=values, workers=workers, check_overflow=check_overflow)
    launch(k)
    if k.trace is None:
        raise ValueError(f"the launcher made {k.n_launches} launch(es); launch {launch_index} never happened")
    return k.trace


def trace_spec(spec: Any, values: dict[str, Any] | None = None, seed: int = 0,
               window: Window | str | tuple[int, int] | None = None, n_sms: int = 132, programs_per_sm: int = 1,
               progress: Progress | None = None, cancel: Cancel | None = None, launch_index: int = 0,
               workers: int | None = None, check_overflow: bool = False) -> Trace:
    """Trace a registered kernel: validate ``values`` (ValidationError names the field), build the
    inputs on the CPU with ``seed``, poison floating outputs with NaN, run ``spec.launch`` with a
    recording K. Other arguments as for ``trace_launch``."""
    import torch

    cfg = spec.config(dict(values or {}))
    gen = torch.Generator().manual_seed(int(seed))
    tensors = spec.make_inputs(cfg, "cpu", gen)
    for name in spec.outputs:
        t = tensors.get(name)
        if t is not None and t.is_floating_point():
            t.fill_(float("nan"))
    shown = {k: v for k, v in cfg.items() if not str(k).startswith("_")}
    return trace_launch(lambda K: spec.launch(K, tensors, cfg), kernel=spec.name, values=shown, window=window,
                        n_sms=n_sms, programs_per_sm=programs_per_sm, launch_index=launch_index,
                        progress=progress, cancel=cancel, workers=workers, check_overflow=check_overflow)


def trace(request: TraceRequest, progress: Progress | None = None, cancel: Cancel | None = None) -> TraceResult:
    """Serve a ``TraceRequest`` (the worker's entry point). Never raises: failures come back as
    ``TraceResult.error`` (an ErrorInfo: validation, interpreter, cancelled, ...)."""
    from ..errors import to_error_info
    from ..params import ValidationError
    from ..results import ErrorInfo

    try:
        from ..engine import check_trace_size, get_spec  # loads the catalog and the user's file

        spec = get_spec(request.kernel, request.user_file)
        # a trace too large for the pipe or the host is refused before anything is built
        check_trace_size(spec, dict(request.values))
        try:
            window = Window.parse(request.window) if request.window else None
        except ValueError as e:
            raise ValidationError(str(e), "window") from None
        tr = trace_spec(spec, request.values, seed=request.seed, window=window, n_sms=request.n_sms,
                        programs_per_sm=request.programs_per_sm, progress=progress, cancel=cancel,
                        workers=request.workers, check_overflow=request.check_overflow)
        return TraceResult(request=request, trace=tr)
    except ValueError as e:
        if isinstance(e, ValidationError):
            return TraceResult(request=request, error=to_error_info(e))
        return TraceResult(request=request, error=ErrorInfo(kind="validation", message=str(e), field="window"
                                                            if "window" in str(e) else None))
    except Exception as e:  # noqa: BLE001 - every failure is reported, the worker keeps serving
        return TraceResult(request=request, error=to_error_info(e, "tracing"))
