"""What a plain Triton script gave when it ran with its launches captured (GUI-safe: no torch,
no triton). The live objects (kernels, tensors, the wrapper) stay in the worker process; these
records describe them to the GUI and the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["CapturedArg", "CapturedLaunch", "ScriptCapture"]


@dataclass(frozen=True)
class CapturedArg:
    name: str
    kind: str  # "tensor" | "scalar" | "constexpr"
    shape: tuple[int, ...] = ()
    dtype: str = ""
    strides: tuple[int, ...] = ()
    value: Any = None  # scalars and constexprs

    def describe(self) -> str:
        if self.kind == "tensor":
            dims = "×".join(map(str, self.shape)) or "scalar"
            contiguous = "" if _is_contiguous(self.shape, self.strides) else f" strides {self.strides}"
            return f"{self.name}: {dims} {self.dtype}{contiguous}"
        return f"{self.name}={self.value!r}"


def _is_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    expect = 1
    for n, s in zip(reversed(shape), reversed(strides), strict=True):
        if n > 1 and s != expect:
            return False
        expect *= n
    return True


@dataclass
class CapturedLaunch:
    index: int  # 0-based, in launch order
    kernel: str  # the @triton.jit function's name
    spec_name: str  # the name it is registered under (run/trace/sweep take it)
    call_site: str  # "file.py:42" of the script line that launched it
    call_text: str  # that line's text
    wrapper: str  # the script function that made the launch ("" at module level)
    grid: tuple[int, ...]
    grid_kind: str  # "callable" (a meta lambda) | "tuple"
    grid_rule: tuple[str, ...]  # inferred rule per dimension over parameter names; () when none fits
    grid_note: str  # what the panel says about the grid (rule inferred, or why it stays fixed)
    args: list[CapturedArg] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)  # num_warps, num_stages, …
    written: list[str] = field(default_factory=list)  # tensors the launch wrote
    autotune_configs: list[str] = field(default_factory=list)  # each config, as text
    autotune_choice: int = -1  # which one ran (-1: not autotuned)
    heuristics: list[str] = field(default_factory=list)  # constexprs set by @triton.heuristics
    resizable: bool = False  # a wrapper can be re-driven for new shapes
    resize_note: str = ""

    def summary(self) -> str:
        grid = "×".join(map(str, self.grid))
        shapes = ", ".join(a.describe() for a in self.args if a.kind == "tensor")
        return f"#{self.index + 1} {self.kernel} at {self.call_site}, grid {grid} — {shapes}"


@dataclass
class ScriptCapture:
    path: str
    launches: list[CapturedLaunch] = field(default_factory=list)
    log: str = ""  # what the script printed (first and last lines when long)
    log_lines: int = 0  # how many lines it printed in all
    stopped: str = ""  # why the script was stopped early ("" when it ran to its end)
    error: str = ""  # what the script raised, with its line ("" when nothing)
    error_line: int = 0  # the script's line it was raised at (0: not in the script)
    missing_module: str = ""  # the module a failed import named
    backend: str = ""
    wall_s: float = 0.0
    notes: list[str] = field(default_factory=list)
