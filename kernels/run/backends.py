"""The same ``@triton.jit`` function run two ways: compiled on the GPU, or interpreted on the CPU.

The choice is per run, not per process: Tilescope never sets ``TRITON_INTERPRET``. Each backend
gives the launcher its ``K``: on the GPU ``K(fn)`` is the JITFunction itself (behind a spy that
notes the grid of each launch); under the interpreter ``K(fn)[grid](...)`` runs the launch
through the interpreter layer (``kernels.interp``) with the out-of-bounds guard and the progress
reporter as observers: lanes whose addresses fall outside every tensor argument's storage stop
the run with ``OutOfBoundsAccess`` before memory is touched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import triton
import triton.language as tl

from ..data.backends import AUTO, CHOICES, GPU, INTERPRETER, backend
from ..data.errors import BackendUnavailable, InterpreterFault
from ..interp import AccessGuard, Interpreter, LaunchInfo, Observer, ProgramProgress, interpreted

__all__ = [
    "Backend",
    "Bf16Probe",
    "INTERPRETER_NOTE",
    "bf16_probe",
    "check_dtype",
    "gpu_status",
    "interpreted",
    "interpreter_backend",
    "resolve",
    "with_options",
]

INTERPRETER_NOTE = "num_warps and num_stages have no effect under the interpreter"
#: the interpreter's device name, shown where a GPU shows its own
CPU_DEVICE_NAME = "CPU (Triton interpreter)"


def gpu_status() -> tuple[bool, str]:
    """(CUDA usable?, why not). Never raises."""
    try:
        import torch
    except ImportError as e:  # pragma: no cover - torch is a dependency
        return False, f"torch is not importable ({e})"
    try:
        if torch.cuda.is_available():
            return True, ""
    except Exception as e:  # a broken driver install raises here
        return False, f"CUDA is installed but unusable: {e}"
    if torch.version.cuda is None:
        return False, f"this torch ({torch.__version__}) is a CPU-only build"
    return False, "torch sees no CUDA device (driver missing or no GPU visible)"


# ---------------------------------------------------------------------------------------------
# backends


class _GridSpy:
    """``K(fn)`` on the GPU: ``[grid]`` notes the grid, then the JITFunction launches as usual."""

    def __init__(self, fn: Any, grids: list[tuple[int, ...]]) -> None:
        self.fn = fn
        self.grids = grids

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        launcher = self.fn[grid]

        def launch(*args: Any, **kwargs: Any) -> Any:
            if not callable(grid):
                g = grid if isinstance(grid, (tuple, list)) else (grid,)
                self.grids.append(tuple(int(x) for x in g))
            return launcher(*args, **kwargs)
        return launch

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fn, name)


@dataclass
class Backend:
    """One way of running kernels. ``name`` is a row of ``kernels.data.backends``; ``device`` a torch device."""

    name: str
    device: str
    device_name: str
    notes: list[str] = field(default_factory=list)
    #: notes of the runs inside the current ``activate()`` (e.g. the guard was unavailable)
    run_notes: list[str] = field(default_factory=list)
    #: the grids launched inside the current ``activate()``, in order, as the launcher gave them
    grids: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def is_interpreter(self) -> bool:
        return self.name == INTERPRETER

    @contextmanager
    def activate(self, kernels: Iterable[Any] = (), progress: Callable[[int, int], None] | None = None,
                 note_grids: bool = True) -> Iterator[Callable[[Any], Any]]:
        """Context of one run; yields ``K``. Under the interpreter ``progress(program,
        n_programs)`` is called between programs (a launch is not cancelled part-way: the engine
        polls cancel between stages, the worker client kills on a timeout). ``note_grids=False``
        (GPU timing loops): ``K(fn)`` is the JITFunction itself, nothing between it and the launch."""
        self.run_notes = []
        self.grids = []
        if not self.is_interpreter:
            yield (lambda fn: _GridSpy(fn, self.grids)) if note_grids else (lambda fn: fn)
            return
        observers: list[Any] = [AccessGuard(), _GridNote(self.grids)]
        if progress is not None:
            observers.append(ProgramProgress(progress))
        session = Interpreter(observers)
        try:
            with session.activate(kernels) as K:
                yield K
        finally:
            self.run_notes.extend(n for n in session.notes if n not in self.run_notes)


class _GridNote(Observer):
    """Notes each interpreted launch's grid."""

    def __init__(self, grids: list[tuple[int, ...]]) -> None:
        self.grids = grids

    def on_launch(self, launch: LaunchInfo) -> None:
        g = launch.grid(launch.bound) if callable(launch.grid) else launch.grid
        self.grids.append(tuple(int(x) for x in (g if isinstance(g, (tuple, list)) else (g,))))


class _WithOptions:
    """``K(fn)`` whose ``[grid](...)`` adds launch options (they win over the launcher's)."""

    def __init__(self, inner: Any, options: Mapping[str, Any]) -> None:
        self.inner = inner
        self.options = dict(options)

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        launch = self.inner[grid]
        return lambda *args, **kwargs: launch(*args, **{**kwargs, **self.options})

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def with_options(K: Callable[[Any], Any], options: Mapping[str, Any]) -> Callable[[Any], Any]:
    """``K`` with ``options`` added to each launch (``K`` itself when there are none)."""
    if not options:
        return K
    return lambda fn: _WithOptions(K(fn), options)


def interpreter_backend(notes: Iterable[str] = ()) -> Backend:
    """The interpreter on the CPU (needs no GPU, so it cannot be unavailable)."""
    return Backend(INTERPRETER, backend(INTERPRETER).torch_device, CPU_DEVICE_NAME, notes=list(notes))


def resolve(requested: str) -> Backend:
    """The backend for ``requested`` (a backend's name or ``AUTO``); raises BackendUnavailable."""
    if requested not in CHOICES:
        raise BackendUnavailable(f"unknown backend {requested!r} (choose {', '.join(CHOICES[1:])} or {AUTO})")
    ok, why = gpu_status()
    if requested == GPU and not ok:
        raise BackendUnavailable(f"no CUDA device: {why}; use --backend {INTERPRETER}")
    if requested == GPU or (requested == AUTO and ok):
        import torch

        return Backend(GPU, backend(GPU).torch_device, torch.cuda.get_device_name())
    return interpreter_backend(notes=[INTERPRETER_NOTE])


# ---------------------------------------------------------------------------------------------
# the bf16 probe


@dataclass(frozen=True)
class Bf16Probe:
    ok: bool
    detail: str  # what the probe computed (or raised)
    triton_version: str


_PROBE: Bf16Probe | None = None


@triton.jit
def _times_two(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)


def bf16_probe() -> Bf16Probe:
    """Run ``x * 2`` on bf16 under the interpreter once per process and compare with torch.

    Triton 3.9's interpreter returns garbage for bf16 arithmetic and 3.6's raises; a run whose
    answer is known to be wrong teaches the wrong thing, so bf16 interpreter runs are refused
    while this probe fails."""
    global _PROBE
    if _PROBE is not None:
        return _PROBE
    import torch

    x = torch.tensor([1.0, 1.5, -2.25, 3.0, 0.5, 100.0, 7.0, -0.125], dtype=torch.bfloat16)
    out = torch.full_like(x, float("nan"))
    expected = x * 2
    try:
        with interpreter_backend().activate([_times_two]) as K:
            K(_times_two)[(1,)](x, out, N=8)
    except Exception as e:  # noqa: BLE001 - any failure is the probe's answer
        cause = e.__cause__ or e
        detail = f"bf16 x*2 raised {type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"
        _PROBE = Bf16Probe(False, detail, triton.__version__)
        return _PROBE
    if torch.equal(out, expected):
        _PROBE = Bf16Probe(True, "bf16 x*2 exact", triton.__version__)
    else:
        got = ", ".join(f"{v:g}" for v in out[:4].float().tolist())
        want = ", ".join(f"{v:g}" for v in expected[:4].float().tolist())
        _PROBE = Bf16Probe(False, f"bf16 x*2 gave [{got}, …], expected [{want}, …]", triton.__version__)
    return _PROBE


def check_dtype(backend: Backend, dtype: str | None) -> None:
    """Refuse interpreter runs in a dtype the interpreter gets wrong (raises InterpreterFault)."""
    if not backend.is_interpreter or dtype != "bf16":
        return
    p = bf16_probe()
    if not p.ok:
        raise InterpreterFault(
            f"bf16 is refused under the interpreter: Triton {p.triton_version}'s interpreter gets "
            f"bf16 arithmetic wrong ({p.detail}); use fp32 or fp16 here, or run bf16 on a GPU",
            field="dtype")
