"""Compile ahead (issue #16): a config the user is about to run is compiled while they type.

The window sends a ``precompile`` with the ``RunRequest`` its Run would send, once the
parameters have settled (``app.window.compile_ahead``); the worker hands it to a ``Precompiler``
and answers at once. A background thread derives exactly what the JIT's launch of that config
hands to ``triton.compile`` (``compile_target.compile_inputs``: Triton's own binder and option
parser, the ``_run_kwargs`` ``JITFunction.run`` adds, ``_pack_args``) on stand-ins of the
inputs, and compiles it for the GPU's target into Triton's on-disk cache; the Run's launch then
finds the binary there (``triton.compile`` with the same source, signature, constants, options
and target is a cache hit) and only loads it. When the Run will read compile facts with the IR
texts, the binary's SASS is disassembled here too (``compiled._sass`` keeps it per cubin): the
cuobjdump process takes about 0.5 s, most of a live run's time.

``JITFunction.warmup`` goes through the same ``run`` (the same binder, ``_pack_args`` and
``compile`` call, so the same cache key) but needs a driver for the target: this path also
compiles for an explicit target on a machine without a GPU, which is how it is tested.

- at most one compile in flight; a newer request replaces a queued one (the newest wins);
- ``wait_for(run_request)``: a Run of the config being compiled waits for it instead of
  compiling it a second time; one of a config only queued takes it off the queue;
- ``exclusive()``: a request that may run the interpreter waits for the compile in flight and
  drops the queued one (the interpreter patches ``triton.language`` while it runs; a compile at
  the same time would read the patched builtins).

Stand-ins: the inputs the last run left in the worker's live cache when they have the shapes and
dtypes this config's inputs would have (the usual case: another block size or ``num_warps``),
else a dry run of ``make_inputs`` on the meta device (``kernels.run.memory``), nothing allocated.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..data.errors import first_line, to_error_info
from ..data.results import RunRequest

__all__ = ["PrecompileOutcome", "Precompiler", "precompile", "precompile_key"]


def precompile_key(req: RunRequest) -> tuple:
    """What decides the binary: the kernel, its file, the values and the launch options (not the
    seed, the timing or the checks)."""
    return (req.kernel, req.user_file, tuple(sorted((str(k), repr(v)) for k, v in req.values.items())),
            tuple(sorted((str(k), repr(v)) for k, v in (req.launch_options or {}).items())))


@dataclass
class PrecompileOutcome:
    key: tuple
    seconds: float = 0.0
    kernels: int = 0  # launches compiled (a cache hit counts)
    error: str = ""  # why nothing was compiled ("" when it was)
    inputs: str = ""  # "live" or "dry run": where the stand-ins came from


def _stand_ins(spec: Any, cfg: dict, live_tensors: Mapping[str, Any] | None) -> tuple[dict[str, Any], str]:
    """The metas of the inputs the run will launch on (``pipeline.TensorMeta``) and their source."""
    import torch

    from ..run.memory import dry_inputs
    from ..tune.pipeline import metas_of

    dry = dry_inputs(spec, cfg)
    if live_tensors:
        same = all(isinstance(live_tensors.get(k), torch.Tensor) and tuple(live_tensors[k].shape) == tuple(v.shape)
                   and live_tensors[k].dtype == v.dtype for k, v in dry.items() if isinstance(v, torch.Tensor))
        if same and set(dry) <= set(live_tensors):
            return metas_of({k: live_tensors[k] for k in dry}), "live"
    return metas_of(dry), "dry run"


def precompile(spec: Any, req: RunRequest, target: Any = None,
               live_tensors: Mapping[str, Any] | None = None) -> PrecompileOutcome:
    """Compile every launch ``spec`` makes for ``req``'s values into Triton's cache, for
    ``target`` (a ``GPUTarget`` or a name such as "sm_90"; None: the GPU's). Never raises."""
    from ..compile.facts import asm_texts
    from ..compile.target import compile_inputs
    from ..tune.pipeline import launches_of

    t0 = time.perf_counter()
    out = PrecompileOutcome(precompile_key(req))
    try:
        import triton
        from triton.compiler import ASTSource

        if target is None:
            target = triton.runtime.driver.active.get_current_target()
        cfg = spec.config(dict(req.values))
        metas, out.inputs = _stand_ins(spec, cfg, live_tensors)
        for jit_fn, args, kwargs in launches_of(spec, cfg, metas, dict(req.launch_options or {})):
            fn, signature, constexprs, attrs, options, gpu_target = compile_inputs(jit_fn, args, kwargs, target)
            ck = triton.compile(ASTSource(fn, signature, constexprs, attrs), target=gpu_target, options=options)
            out.kernels += 1
            if req.compile_facts and req.keep_asm:  # the Run's compile facts then find its SASS disassembled
                asm_texts(ck)
    except Exception as e:  # noqa: BLE001 - the Run compiles (and reports) it itself
        out.error = first_line(to_error_info(e, "compiling").message, 200)
    out.seconds = time.perf_counter() - t0
    return out


class Precompiler:
    """One background thread compiling the newest requested config (see the module doc).
    ``find_spec(req)`` gives the KernelSpec of a request (raises when unknown); ``live()`` the
    tensors of the last run, or None."""

    def __init__(self, find_spec: Callable[[RunRequest], Any], live: Callable[[], Mapping[str, Any] | None]
                 = lambda: None) -> None:
        self._find_spec, self._live = find_spec, live
        self._cond = threading.Condition()
        self._queued: tuple[RunRequest, Any] | None = None
        self._running: tuple | None = None  # the key being compiled
        self._gate = threading.Lock()  # held by a compile, or by a request that must not overlap one
        self._thread: threading.Thread | None = None
        self.last: PrecompileOutcome | None = None  # the latest finished compile
        self.done = 0  # compiles finished

    def submit(self, req: RunRequest, target: Any = None) -> str:
        """Queue ``req``'s config; "queued", or why not ("compiling already", "queued already")."""
        key = precompile_key(req)
        with self._cond:
            if self._running == key:
                return "compiling already"
            if self._queued is not None and precompile_key(self._queued[0]) == key:
                return "queued already"
            self._queued = (req, target)  # a config queued before is dropped: the newest wins
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="tilescope-precompile", daemon=True)
                self._thread.start()
            self._cond.notify_all()
        return "queued"

    @property
    def compiling(self) -> tuple | None:
        """The key of the config being compiled now, or None."""
        return self._running

    def wait_for(self, req: RunRequest, cancel: Callable[[], bool] | None = None) -> bool:
        """Before ``req``'s launch: wait while its config is being compiled (True when it was);
        a queued compile of it is dropped (the launch compiles it)."""
        key = precompile_key(req)
        with self._cond:
            if self._queued is not None and precompile_key(self._queued[0]) == key:
                self._queued = None
            waited = False
            while self._running == key and not (cancel is not None and cancel()):
                waited = True
                self._cond.wait(0.05)
            return waited

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """No compile runs inside the block: the one in flight is waited for, the queued one dropped."""
        with self._cond:
            self._queued = None
        with self._gate:
            yield

    def idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is compiling or queued; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._running is not None or self._queued is not None:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left if left is not None else 0.1)
        return True

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._queued is None:
                    if not self._cond.wait(30.0):
                        if self._queued is None:
                            self._thread = None
                            return
            with self._gate:
                with self._cond:
                    if self._queued is None:  # dropped while this thread waited for the gate
                        continue
                    req, target = self._queued
                    self._queued = None
                    self._running = precompile_key(req)
                out = None
                try:
                    out = self._compile(req, target)
                finally:
                    with self._cond:
                        self._running = None
                        self.last = out if out is not None else self.last
                        self.done += 1
                        self._cond.notify_all()

    def _compile(self, req: RunRequest, target: Any) -> PrecompileOutcome:
        try:
            spec = self._find_spec(req)
            live = self._live()
        except Exception as e:  # noqa: BLE001 - an unknown kernel: the Run says so
            return PrecompileOutcome(precompile_key(req), error=first_line(f"{type(e).__name__}: {e}", 200))
        return precompile(spec, req, target, live)
