"""A captured launch as a standalone script that runs without Tilescope.

``export_reproducer(live, directory, name)`` writes ``<name>.py`` — the script's ``@triton.jit``
functions (the kernel and the helpers it can call), one launch line with the captured grid,
arguments and options, and a comparison with the captured outputs — and ``<name>.pt`` with the
inputs as they were before the launch and the outputs after it. On a machine without a GPU the
reproducer sets ``TRITON_INTERPRET=1`` before importing triton.
"""

from __future__ import annotations

import os
from typing import Any

import torch

from ..specs.spec import jit_source
from .capture import LiveLaunch

__all__ = ["export_reproducer"]

_HEAD = '''"""Reproducer of {kernel} as launched at {site} (written by Tilescope; runs without it).

    python {name}.py      # on a GPU, or on the CPU through Triton's interpreter
"""
import os
import sys

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # no GPU: Triton's CPU interpreter

import triton  # noqa: E402
import triton.language as tl  # noqa: E402,F401

'''

_TAIL = '''

here = os.path.dirname(os.path.abspath(__file__))
saved = torch.load(os.path.join(here, "{name}.pt"))
device = "cuda" if torch.cuda.is_available() else "cpu"
args = {{k: (v.to(device) if isinstance(v, torch.Tensor) else v) for k, v in saved["args"].items()}}
{kernel}[{grid}](**args, **saved["options"])
bad = 0
for k, want in saved["outputs"].items():
    got = args[k].cpu()
    ok = torch.allclose(got.double(), want.double(), atol={atol}, rtol={rtol}, equal_nan=True)
    print(f"{{k}}: {{'matches' if ok else 'DIFFERS from'}} the captured output")
    bad += not ok
sys.exit(1 if bad else 0)
'''


def _jit_functions(fn: Any) -> list[Any]:
    """The kernel and every @triton.jit function in its module (the helpers it may call)."""
    from triton.runtime.jit import JITFunction

    out = [fn]
    for v in fn.fn.__globals__.values():
        if isinstance(v, JITFunction) and v is not fn and v not in out:
            out.append(v)
    return out[1:] + out[:1]  # helpers first: the kernel's source refers to them by name


def export_reproducer(live: LiveLaunch, directory: str, name: str, tolerance: tuple[float, float]) -> str:
    """Write the reproducer; returns the path of the .py."""
    os.makedirs(directory, exist_ok=True)
    sources = []
    for f in _jit_functions(live.fn):
        text, _, _ = jit_source(f)
        if text:
            sources.append(text if text.lstrip().startswith("@") else "@triton.jit\n" + text)
    args = {k: (v.detach().cpu() if isinstance(v, torch.Tensor) else v) for k, v in live.bound.items()}
    for k, t in live.before.items():
        args[k] = t.to("cpu", copy=True)  # a copy kept on the GPU (snapshots) is saved from the host too
    options = {k: v for k, v in live.options.items() if isinstance(v, (int, float, str, bool))}
    torch.save({"args": args, "options": options, "outputs": {k: t.cpu() for k, t in live.after.items()}},
               os.path.join(directory, f"{name}.pt"))
    file, line, _ = live.call_site
    grid = tuple(int(g) for g in live.grid3)
    text = (_HEAD.format(kernel=live.fn.fn.__name__, site=f"{os.path.basename(file)}:{line}", name=name)
            + "\n\n".join(sources)
            + _TAIL.format(name=name, kernel=live.fn.fn.__name__, grid=grid, atol=tolerance[0], rtol=tolerance[1]))
    path = os.path.join(directory, f"{name}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path
