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
import time
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import _interp
from .errors import TraceCancelled, TraceUnsupported
from .loops import LOOPS_NAME, LoopInstrumenter, LoopState
from .maps import derive, waves
from .model import (OOB_OUTSIDE_STORAGE, OOB_OUTSIDE_VIEW, OP_NAMES, AccessTable, OOBRecord, TensorInfo, Trace,
                    TraceRequest, TraceResult, Window)

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
            for n, s in zip(self.info.shape, self.info.strides):
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
    max_off = sum((n - 1) * s for n, s in zip(shape, strides)) if numel else 0
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
        if isinstance(value, tuple) and value and any(walk(f"{name}[{i}]", v) for i, v in enumerate(value)):
            return True
        return False

    for name, value in bound.items():
        if name in consts:
            constexprs[name] = _plain(value)
        elif not walk(name, value):
            scalars[name] = _plain(value)
    return tensors, scalars, constexprs


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


# ---------------------------------------------------------------------------------------------
# from addresses to logical elements


def _map_lanes(addr: np.ndarray, args: list[_Arg]) -> tuple[np.ndarray, np.ndarray]:
    """(tensor index int16, logical index int64) of every address; -1/-1 where it is on no
    logical element. When views alias, the first argument in signature order that holds the
    element wins."""
    n = addr.size
    tid = np.full(n, -1, dtype=np.int16)
    logical = np.full(n, -1, dtype=np.int64)
    todo: np.ndarray | None = None  # lanes not yet placed (None: all)
    for t, a in enumerate(args):
        if a.info.numel == 0:
            continue
        sub = addr if todo is None else addr[todo]
        inr = (sub >= np.uint64(a.lo)) & (sub < np.uint64(a.hi))
        if not inr.any():
            continue
        idx = np.flatnonzero(inr) if todo is None else todo[inr]
        eo = (addr[idx] - np.uint64(a.data_ptr)).astype(np.int64) // a.info.element_size
        rest = np.flatnonzero(~inr) if todo is None else todo[~inr]
        if a.contiguous:
            tid[idx] = t
            logical[idx] = eo
        else:
            li = a.inverse()[eo - a.min_off]
            ok = li >= 0
            tid[idx[ok]] = t
            logical[idx[ok]] = li[ok]
            if not ok.all():  # a gap of this view may be an element of another argument
                rest = np.sort(np.concatenate([rest, idx[~ok]]))
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


def _finish(rec: _Recorder, args: list[_Arg], n_loops: int) -> _Finished:
    n_ev = len(rec.ev_prog)
    counts = np.fromiter((a.size for a in rec.addrs), dtype=np.int64, count=n_ev)
    addr = np.concatenate(rec.addrs) if n_ev else np.zeros(0, np.uint64)
    rec.addrs.clear()  # the addresses are the bulk of the memory; drop them as we go
    tid, logical = _map_lanes(addr, args)
    lane_ev = np.repeat(np.arange(n_ev, dtype=np.int64), counts)
    valid = tid >= 0
    all_valid = bool(valid.all())
    ev_prog = np.array(rec.ev_prog, dtype=np.int32)
    ev_op = np.array(rec.ev_op, dtype=np.int8)
    ev_line = np.array(rec.ev_line, dtype=np.int32)
    ev_masked = np.array(rec.ev_masked, dtype=np.int32)
    ev_iters = (np.array(rec.ev_iters, dtype=np.int32).reshape(n_ev, n_loops) if n_loops
                else np.zeros((n_ev, 0), np.int32))

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

    for e, bad in zip(rec.oob_ev, rec.oob_addrs):
        n_oob[e] += bad.size
        note(e, bad, OOB_OUTSIDE_STORAGE, _nearest(int(bad[0]), args))
    if not all_valid:
        bad_ev = lane_ev[~valid]
        bad_addr = addr[~valid]
        n_oob += np.bincount(bad_ev, minlength=n_ev)
        starts = np.flatnonzero(np.r_[True, bad_ev[1:] != bad_ev[:-1]])
        ends = np.r_[starts[1:], bad_ev.size]
        for s, t in zip(starts.tolist(), ends.tolist()):
            chunk = bad_addr[s:t]
            note(int(bad_ev[s]), chunk, OOB_OUTSIDE_VIEW, _nearest(int(chunk[0]), args))
        lane_ev, tid, logical = lane_ev[valid], tid[valid], logical[valid]
    del addr
    oob = [OOBRecord(program=k[0], op=OP_NAMES[k[1]], line=k[2], count=v[0],
                     nearest_tensor=args[k[4]].info.name if k[4] >= 0 else "", example_offsets=v[1], kind=k[3])
           for k, v in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1]))]

    big = any(a.info.numel >= 2 ** 31 for a in args)
    el_dtype = np.int64 if big else np.int32
    n_t = len(args)
    mixed = bool(np.any((tid[1:] != tid[:-1]) & (lane_ev[1:] == lane_ev[:-1]))) if tid.size > 1 else False
    if not mixed:  # the usual case: each access hits one tensor, one row per access
        n_active = np.bincount(lane_ev, minlength=n_ev).astype(np.int64)
        lane_start = np.zeros(n_ev, dtype=np.int64)
        if n_ev:
            lane_start[1:] = np.cumsum(n_active)[:-1]
        ev_tensor = np.full(n_ev, -1, dtype=np.int16)
        has = n_active > 0
        ev_tensor[has] = tid[lane_start[has]]
        row_ev = np.arange(n_ev)
        elements = logical.astype(el_dtype)
        first_row = np.ones(n_ev, dtype=bool)
    else:  # some access spans several tensors: one row per (access, tensor), in that order
        key = lane_ev * (n_t + 1) + (tid.astype(np.int64) + 1)
        order = np.argsort(key, kind="stable")
        key = key[order]
        elements = logical[order].astype(el_dtype)
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
        ev_tensor[r] = _tensor_of_address(rec.ev_hint[int(row_ev[r])], args)
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
                 kernel: str = "", values: dict[str, Any] | None = None) -> None:
        self.launch_index = launch_index
        self.window = window
        self.n_sms = n_sms
        self.programs_per_sm = programs_per_sm
        self.progress = progress
        self.cancel = cancel
        self.kernel = kernel
        self.values = dict(values or {})
        self.n_launches = 0
        self.trace: Trace | None = None

    def __call__(self, jit_fn: Any) -> "_Launchable":
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


def _kernel_error(e: BaseException, pid: int, grid: tuple[int, int, int], code: Any, name: str) -> Exception:
    from ..errors import InterpreterFault

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


def _record(owner: RecordingK, jit_fn: Any, grid: Any, args: tuple, kwargs: dict) -> Trace:
    import triton

    _interp.require()
    t0 = time.perf_counter()
    bound = _bind(jit_fn, args, kwargs)
    grid3 = _grid3(grid, bound)
    consts = _interp.constexpr_names(jit_fn)
    targs, scalars, constexprs = _collect_args(bound, consts)
    window = owner.window
    pids = (window or Window()).pids(grid3) if grid3[0] * grid3[1] * grid3[2] else np.zeros(0, np.int32)
    pids = np.sort(pids)
    window_text = window.describe(grid3) if window is not None and pids.size else None

    instr = LoopInstrumenter()
    loops = LoopState(0)
    rec = _Recorder(targs, loops)
    progress, cancel = owner.progress, owner.cancel
    total = int(pids.size)
    done = [0]
    last = [time.perf_counter()]

    def before_program(pid: int) -> None:
        if cancel is not None and cancel():
            raise TraceCancelled(f"trace cancelled after {done[0]} of {total} programs")
        rec.pid = pid
        loops.reset()
        done[0] += 1
        if progress is not None and (done[0] & 7) == 0:
            now = time.perf_counter()
            if now - last[0] >= _PROGRESS_EVERY_S:
                last[0] = now
                progress(f"tracing {done[0]}/{total} programs", done[0] / max(1, total))

    name = jit_fn.fn.__name__
    with _interpreter_backend().activate([jit_fn]):
        kernel = _interp.rewrite(jit_fn, instr.visit, {LOOPS_NAME: loops})
        loops.n = len(instr.loops)
        loops.reset()
        rec.code = kernel.__code__
        if progress is not None:
            progress(f"tracing 0/{total} programs", 0.0)
        with _interp.hooks(rec.on_access):
            try:
                _interp.run_programs(kernel, jit_fn, bound, grid3, pids, before_program)
            except TraceCancelled:
                raise
            except Exception as e:
                raise _kernel_error(e, rec.pid, grid3, kernel.__code__, name) from e
    t1 = time.perf_counter()
    if progress is not None:
        progress("deriving maps", 1.0)
    done_ = _finish(rec, targs, len(instr.loops))
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
        record_s=t1 - t0, derive_s=t2 - t1, launch_index=owner.launch_index, kernel_fn=name)


def _run_plain(jit_fn: Any, grid: Any, args: tuple, kwargs: dict) -> None:
    bound = _bind(jit_fn, args, kwargs)
    grid3 = _grid3(grid, bound)
    pids = np.arange(grid3[0] * grid3[1] * grid3[2], dtype=np.int64)
    with _interpreter_backend().activate([jit_fn]):
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
                 cancel: Cancel | None = None) -> Trace:
    """Trace one launch made by ``launch(K)`` (which calls ``K(jit_fn)[grid](*args, **kwargs)``
    with CPU tensors). ``window``: a ``Window``, its text ("0:256", "0:8,0:4") or (start, stop)
    of linear ids; only those programs run. Raises TraceUnsupported, TraceCancelled,
    InterpreterFault (the kernel failed; message names program and line) or ValueError."""
    k = RecordingK(launch_index=launch_index, window=_as_window(window), n_sms=n_sms,
                   programs_per_sm=programs_per_sm, progress=progress, cancel=cancel, kernel=kernel,
                   values=values)
    launch(k)
    if k.trace is None:
        raise ValueError(f"the launcher made {k.n_launches} launch(es); launch {launch_index} never happened")
    return k.trace


def trace_spec(spec: Any, values: dict[str, Any] | None = None, seed: int = 0,
               window: Window | str | tuple[int, int] | None = None, n_sms: int = 132, programs_per_sm: int = 1,
               progress: Progress | None = None, cancel: Cancel | None = None, launch_index: int = 0) -> Trace:
    """Trace a registered kernel: validate ``values`` (ValidationError names the field), build the
    inputs on the CPU with ``seed``, poison floating outputs with NaN, run ``spec.launch`` with a
    recording K."""
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
                        progress=progress, cancel=cancel)


def trace(request: TraceRequest, progress: Progress | None = None, cancel: Cancel | None = None) -> TraceResult:
    """Serve a ``TraceRequest`` (the worker's entry point). Never raises: failures come back as
    ``TraceResult.error`` (an ErrorInfo: validation, interpreter, cancelled, ...)."""
    from ..errors import to_error_info
    from ..params import ValidationError
    from ..results import ErrorInfo

    try:
        from ..engine import get_spec  # loads the catalog and the user's file, as a run does

        spec = get_spec(request.kernel, request.user_file)
        try:
            window = Window.parse(request.window) if request.window else None
        except ValueError as e:
            raise ValidationError(str(e), "window") from None
        tr = trace_spec(spec, request.values, seed=request.seed, window=window, n_sms=request.n_sms,
                        programs_per_sm=request.programs_per_sm, progress=progress, cancel=cancel)
        return TraceResult(request=request, trace=tr)
    except ValueError as e:
        if isinstance(e, ValidationError):
            return TraceResult(request=request, error=to_error_info(e))
        return TraceResult(request=request, error=ErrorInfo(kind="validation", message=str(e), field="window"
                                                            if "window" in str(e) else None))
    except Exception as e:  # noqa: BLE001 - every failure is reported, the worker keeps serving
        return TraceResult(request=request, error=to_error_info(e, "tracing"))
