"""The backends as one table: what each is called, what it is shown as and what it can do.

A kernel runs two ways: compiled on the GPU, or interpreted by Triton's interpreter on the CPU
(``kernels.run.backends`` builds the launcher for each). Code that asks "may this run be timed
as GPU time?", "do num_warps and num_stages change anything?" or "which trace recorder answers?"
reads a row here instead of comparing a name with a string. GUI-safe: standard library only.

The CLI's ``--backend`` choices and translated texts may spell the names out; everything else
uses ``GPU``, ``INTERPRETER``, ``AUTO`` and ``backend(name)``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AUTO", "BACKENDS", "CHOICES", "GPU", "INTERPRETER", "NAMES", "BackendInfo", "backend", "is_gpu",
           "is_interpreter"]

GPU = "gpu"
INTERPRETER = "interpreter"
#: not a backend: "the GPU if there is one, else the interpreter" (``kernels.run.backends.resolve``)
AUTO = "auto"


@dataclass(frozen=True)
class BackendInfo:
    """One backend: its name (on the wire, in settings and on the command line) and what it supports."""

    name: str
    #: source text for the user (the window translates it with ``tr``)
    label: str
    #: the torch device its tensors live on
    torch_device: str
    #: how a run is timed; only "gpu" timings are kernel speed
    timing: str
    #: num_warps and num_stages change what runs (the interpreter ignores them)
    honours_launch_options: bool
    #: which recorder traces a launch: "instrumented build" (every program, on the device) or
    #: "interpreter replay" (program by program on the CPU)
    trace_recorder: str
    #: registers, spills, occupancy and SASS of a real compile come with a run
    compile_facts: bool
    #: an out-of-bounds access is stopped before it touches memory (the interpreter's guard)
    stops_out_of_bounds: bool
    #: the per-SM timeline of a trace, the roofline's measured peaks, compile-ahead of edited configs
    gpu_only_features: bool


BACKENDS: tuple[BackendInfo, ...] = (
    BackendInfo(name=GPU, label="GPU", torch_device="cuda", timing="gpu",
                honours_launch_options=True, trace_recorder="instrumented build", compile_facts=True,
                stops_out_of_bounds=False, gpu_only_features=True),
    BackendInfo(name=INTERPRETER, label="Interpreter (CPU)", torch_device="cpu", timing="wall clock",
                honours_launch_options=False, trace_recorder="interpreter replay", compile_facts=False,
                stops_out_of_bounds=True, gpu_only_features=False),
)

#: the backend names, in table order
NAMES: tuple[str, ...] = tuple(b.name for b in BACKENDS)
#: what a user may ask for: a backend or ``AUTO``
CHOICES: tuple[str, ...] = (AUTO, *NAMES)

_BY_NAME = {b.name: b for b in BACKENDS}


def backend(name: str) -> BackendInfo:
    """The row for ``name``; KeyError naming the known backends for anything else (``AUTO`` included:
    it is resolved to a backend before anything asks what it supports)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown backend {name!r} (known: {', '.join(NAMES)})") from None


def is_gpu(name: str | None) -> bool:
    """``name`` is the GPU backend (None, ``AUTO`` and unknown names are not)."""
    return name == GPU


def is_interpreter(name: str | None) -> bool:
    """``name`` is the interpreter backend."""
    return name == INTERPRETER
