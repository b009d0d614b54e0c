"""Torch's and Python's process-wide state, kept across a plain script's run.

A script runs inside the worker, and what it sets at import stays set for every later request:
``torch.set_default_device("cuda")`` made every catalog run fail ("Torch not compiled with CUDA
enabled") until the app restarted. ``kept()`` takes a snapshot before the script (or its wrapper,
called again for new sizes) runs and puts back whatever it changed: torch's default device (a
per-thread setting), default dtype, grad mode, deterministic algorithms, TF32 and matmul
precision, thread count and random state; Python's environment variables, working folder,
``sys.path``, recursion limit, signal handlers, exception hooks and warning filters; numpy's
floating-point error handling. What was put back is named, for the capture's notes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

__all__ = ["kept"]

_SIGNALS = [getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGALRM", "SIGCHLD", "SIGPIPE", "SIGUSR1",
                                         "SIGUSR2", "SIGXFSZ") if hasattr(signal, n)]


def _device() -> Any:
    ctx = getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None)  # what set_default_device sets
    return None if ctx is None else getattr(ctx, "device", None)


def _set_device(d: Any) -> None:
    torch.set_default_device(d)


def _deterministic() -> tuple[bool, bool]:
    return torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()


def _set_deterministic(v: tuple[bool, bool]) -> None:
    torch.use_deterministic_algorithms(v[0], warn_only=v[1])


def _backends() -> tuple:
    cuda = torch.backends.cuda.matmul
    cudnn = torch.backends.cudnn
    return cuda.allow_tf32, cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic


def _set_backends(v: tuple) -> None:
    cudnn = torch.backends.cudnn
    torch.backends.cuda.matmul.allow_tf32, cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic = v


def _signals() -> dict[int, Any]:
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {s: signal.getsignal(s) for s in _SIGNALS}


def _set_signals(v: dict[int, Any]) -> None:
    for s, h in v.items():
        if h is not None:
            signal.signal(s, h)


def _set_env(v: dict[str, str]) -> None:
    for k in [k for k in os.environ if k not in v]:
        del os.environ[k]
    for k, x in v.items():
        if os.environ.get(k) != x:
            os.environ[k] = x


def _set_path(v: list[str]) -> None:
    sys.path[:] = v


def _set_filters(v: list) -> None:
    warnings.filters[:] = v
    warnings._filters_mutated()  # type: ignore[attr-defined]


def _set_hooks(v: tuple) -> None:
    sys.excepthook, threading.excepthook = v


def _set_rng(v: torch.Tensor) -> None:
    torch.set_rng_state(v)


#: (what the note calls it, read it, put it back, compare)
_ITEMS: list[tuple[str, Callable[[], Any], Callable[[Any], None]]] = [
    ("torch's default device", _device, _set_device),
    ("torch's default dtype", torch.get_default_dtype, torch.set_default_dtype),
    ("torch's grad mode", torch.is_grad_enabled, torch.set_grad_enabled),
    ("torch's deterministic algorithms", _deterministic, _set_deterministic),
    ("torch's TF32 and cuDNN flags", _backends, _set_backends),
    ("torch's float32 matmul precision", torch.get_float32_matmul_precision, torch.set_float32_matmul_precision),
    ("torch's thread count", torch.get_num_threads, torch.set_num_threads),
    ("environment variables", lambda: dict(os.environ), _set_env),
    ("the working folder", os.getcwd, os.chdir),
    ("sys.path", lambda: list(sys.path), _set_path),
    ("the recursion limit", sys.getrecursionlimit, sys.setrecursionlimit),
    ("signal handlers", _signals, _set_signals),
    ("exception hooks", lambda: (sys.excepthook, threading.excepthook), _set_hooks),
    ("warning filters", lambda: list(warnings.filters), _set_filters),
    ("numpy's error handling", np.geterr, lambda v: np.seterr(**v)),
]


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - an odd object: say it changed, put it back
        return False


@contextlib.contextmanager
def kept(notes: list[str] | None = None) -> Iterator[None]:
    """Run the body, then put back every item above it changed (and torch's random state);
    append to ``notes`` one sentence naming what was put back."""
    saved = []
    for name, read, write in _ITEMS:
        try:
            saved.append((name, read(), write))
        except Exception:  # noqa: BLE001 - unreadable here (a poisoned default device): leave it be
            continue
    rng = torch.get_rng_state()
    try:
        yield
    finally:
        changed = []
        for name, before, write in saved:
            try:
                now = next(r for n, r, _ in _ITEMS if n == name)()
            except Exception:  # noqa: BLE001 - unreadable now (the default device made every tensor fail)
                now = object()
            if _same(now, before):
                continue
            try:
                write(before)
                changed.append(name)
            except Exception as e:  # noqa: BLE001 - say what could not be put back
                changed.append(f"{name} (could not be put back: {type(e).__name__}: {e})")
        _set_rng(rng)
        if changed and notes is not None:
            notes.append("the script changed " + ", ".join(changed) + "; they were put back after it ran, so "
                         "later runs in this worker see the state they had before")
