"""The engine's exception types and their translation into ``ErrorInfo``.

The engine never lets an exception escape ``engine.run``: every failure becomes an ``ErrorInfo``
(kind, one-line message, the parameter to mark, Triton's own text as detail). These types carry
the kind from the place that knows it to the place that reports it. No torch/triton at import
time: ``to_error_info`` recognises their exceptions by class name so this module stays cheap.
"""

from __future__ import annotations

import traceback

from .params import ValidationError
from .results import ErrorInfo

__all__ = [
    "TraceCancelled",
    "TraceUnsupported",
    "BackendUnavailable",
    "Cancelled",
    "CompileError",
    "InterpreterFault",
    "LaunchError",
    "OutOfBoundsAccess",
    "ResourceError",
    "TilescopeError",
    "UserFileError",
    "first_line",
    "to_error_info",
]


class TilescopeError(Exception):
    """An expected failure with a message meant for the user. ``kind`` is ErrorInfo.kind."""

    kind = "internal"

    def __init__(self, message: str, detail: str = "", field: str | None = None):
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.field = field

    def __reduce__(self):  # keep message/detail/field when pickled across the worker pipe
        return (type(self), (self.message, self.detail, self.field))

    def info(self) -> ErrorInfo:
        return ErrorInfo(kind=self.kind, message=self.message, field=self.field, detail=self.detail)


class CompileError(TilescopeError):
    """Triton could not compile the kernel (source error, out of resources, ptxas failure)."""

    kind = "compile"


class LaunchError(TilescopeError):
    """The kernel compiled but failed while launching or running on the device."""

    kind = "launch"


class OutOfBoundsAccess(TilescopeError):
    """An interpreted kernel addressed memory outside every tensor argument's storage.

    Raised by the interpreter backend's access guard *before* the load or store touches memory
    (unguarded, the interpreter would read or write an arbitrary address and crash the process,
    as an illegal address does on a GPU). The message names the program, the op, the source line
    and how many lanes were out of bounds."""

    kind = "out_of_bounds"


class InterpreterFault(TilescopeError):
    """The interpreter failed, or refuses a run whose answer it is known to get wrong."""

    kind = "interpreter"


class UserFileError(TilescopeError):
    """A user's kernel file could not be loaded."""

    kind = "user_file"


class BackendUnavailable(TilescopeError):
    """The requested backend cannot run here (``gpu`` without CUDA). Marks the backend field."""

    kind = "validation"

    def __init__(self, message: str, detail: str = "", field: str | None = "backend"):
        super().__init__(message, detail, field)


class ResourceError(TilescopeError):
    """The problem does not fit in device memory (or host memory, for the interpreter)."""

    kind = "validation"


class Cancelled(TilescopeError):
    """The caller's ``cancel()`` returned true between two stages."""

    kind = "cancelled"


def first_line(text: str, limit: int = 300) -> str:
    """The first non-empty line of ``text``, shortened to ``limit`` characters."""
    for line in str(text).splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _compile_message(exc: BaseException) -> tuple[str, str]:
    """(one line, full text) for Triton's compile-time exceptions, without a Python traceback."""
    name = type(exc).__name__
    text = str(exc)
    if name == "OutOfResources":
        # "out of resource: shared memory, Required: 262144, Hardware limit: 232448. Reducing
        # block sizes or `num_stages` may help." — already one clear line
        return first_line(text), text
    if name == "CompilationError":
        # Triton prints the offending source line with a caret, then the cause on the last line
        lines = [ln for ln in text.splitlines() if ln.strip()]
        cause = lines[-1].strip() if lines else name
        where = first_line(text)
        msg = cause if where == cause else f"{cause} ({where})"
        return first_line(msg), text
    return first_line(f"{name}: {text}"), text


def to_error_info(exc: BaseException, stage: str = "") -> ErrorInfo:
    """Translate any exception into an ErrorInfo. ``stage`` ("launch", ...) picks the kind for
    exceptions that carry none (a RuntimeError while launching is a launch error)."""
    if isinstance(exc, TilescopeError):
        return exc.info()
    if isinstance(exc, ValidationError):
        return ErrorInfo(kind="validation", message=exc.message, field=exc.field)
    name = type(exc).__name__
    if name == "OutOfMemoryError":  # torch.cuda.OutOfMemoryError
        return ErrorInfo(kind="oom", message=f"out of device memory: {first_line(str(exc), 200)}",
                         detail=str(exc))
    if name in ("CompilationError", "OutOfResources", "PTXASError"):
        msg, detail = _compile_message(exc)
        return ErrorInfo(kind="compile", message=f"compile error: {msg}", detail=detail)
    if _raised_while_compiling(exc):
        # Triton compiles lazily inside the first launch: an MLIR pass failure ("PassManager::run
        # failed"), an assertion on the options or a backend stage error is a RuntimeError or
        # AssertionError raised by the compiler, not by a running kernel
        msg = first_line(f"{name}: {exc}" if str(exc) else name)
        if "PassManager" in str(exc):
            msg += " (Triton's compiler passes rejected the kernel; their diagnostics are on the worker's stderr)"
        return ErrorInfo(kind="compile", message=f"compile error: {msg}", detail=_tail(exc))
    if name == "InterpreterError":
        cause = exc.__cause__ or exc
        return ErrorInfo(kind="interpreter",
                         message=f"interpreter error: {first_line(f'{type(cause).__name__}: {cause}')}",
                         detail=_tail(cause))
    if isinstance(exc, MemoryError):
        return ErrorInfo(kind="oom", message="out of host memory", detail=_tail(exc))
    if stage == "launch":
        return ErrorInfo(kind="launch", message=f"launch failed: {first_line(f'{name}: {exc}')}",
                         detail=_tail(exc))
    where = f" while {stage}" if stage else ""
    return ErrorInfo(kind="internal", message=f"internal error{where}: {first_line(f'{name}: {exc}')}",
                     detail=_tail(exc))


def _raised_while_compiling(exc: BaseException) -> bool:
    """Whether the traceback (of ``exc`` or what caused it) runs through Triton's compiler:
    ``triton.compiler.compiler.compile`` or a backend's compile stages (``make_ttir`` …).
    Loading the compiled binary (``_init_handles``) does not count: a CUDA error surfacing
    there belongs to an earlier launch."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        tb = e.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            path = code.co_filename.replace("\\", "/")
            if path.endswith("triton/compiler/compiler.py") and code.co_name == "compile":
                return True
            if "/triton/backends/" in path and path.endswith("/compiler.py") and (
                    code.co_name.startswith("make_") or code.co_name == "parse_options"):
                return True
            tb = tb.tb_next
        e = e.__cause__ or e.__context__
    return False


def _tail(exc: BaseException, n_lines: int = 25) -> str:
    """The last lines of the traceback: enough to find the bug, short enough for a details box."""
    lines = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).splitlines()
    return "\n".join(lines[-n_lines:])


class TraceUnsupported(InterpreterFault):
    """This Triton's interpreter lacks a hook the tracer needs; ``hook`` names it. Raised before
    anything runs, so no map is ever drawn from a partial observation."""

    def __init__(self, message: str, detail: str = "", field: str | None = None, hook: str = ""):
        super().__init__(message, detail, field)
        self.hook = hook

    def __reduce__(self):
        return (type(self), (self.message, self.detail, self.field, self.hook))


#: raised between programs when the caller's ``cancel()`` returns true
TraceCancelled = Cancelled
