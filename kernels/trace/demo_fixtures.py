"""The demo data the widgets' previews and tests use, recorded from real kernels.

``python -m kernels.trace.demo_fixtures`` traces small launches on the CPU interpreter and writes each
as a gzipped pickle into ``resources/demo/``; ``views.demo`` loads them without torch or triton.
So a demo can never drift from the kernel it shows: a trace here is what the tracer records for
the catalog kernel (``trace_spec``), and ``tests/views/test_demo_fixtures.py`` fails when a
regenerated trace no longer equals the shipped one. Run this module again after changing a
catalog kernel, the tracer or the trace model.

Four demos show what no catalog kernel does (a 3-D grid, atomics, and two bugs: a forgotten mask
and overlapping blocks). They are small real Triton kernels below, traced with ``trace_launch``,
never a numpy imitation of one.

Recording-dependent details are normalized so that a regenerated file is byte-identical: the
source path is made relative to the repository, timings are zeroed.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import triton
import triton.language as tl

from kernels.sources.lookup import get_spec
from kernels.trace import trace_launch, trace_spec

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_DIR = ROOT / "resources" / "demo"
SUFFIX = ".pkl.gz"

__all__ = ["CATALOG_TRACES", "EXTRA_TRACES", "FIXTURE_DIR", "INFO_KERNELS", "SUFFIX", "build", "dumps", "main",
           "names", "write"]

#: fixture name -> (catalog kernel, values, window): traces of the catalog kernels
CATALOG_TRACES: dict[str, tuple[str, dict[str, Any], str | None]] = {
    # 4 programs; the last block's 24 lanes past the end are masked
    "vector_add": ("vector_add", {"N": 1000, "BLOCK_SIZE": 256, "dtype": "fp32"}, None),
    # the same launch with only programs 0 and 1 recorded
    "vector_add_window": ("vector_add", {"N": 1000, "BLOCK_SIZE": 256, "dtype": "fp32"}, "0:2"),
    # 32 full blocks: the unit ``views.demo`` repeats into large traces for stress tests
    "vector_add_4096": ("vector_add", {"N": 4096, "BLOCK_SIZE": 128, "dtype": "fp32"}, None),
    # 16 programs in grouped order, 4 K steps of 16x16 A and B tiles
    "matmul": ("matmul", {"M": 64, "N": 64, "K": 64, "BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16,
                          "GROUP_SIZE_M": 2, "dtype": "fp16"}, None),
    # one row per program, the row in one block
    "softmax": ("softmax", {"M": 16, "N": 100, "BLOCK_SIZE": 128, "dtype": "fp32"}, None),
    # two loops in sequence: pass 1 reads the row, pass 2 reads it again and writes
    "softmax_looped": ("softmax_looped", {"M": 8, "N": 200, "BLOCK_SIZE": 64, "dtype": "fp32"}, None),
    # a 2-D grid (query blocks x heads) with a loop over key blocks
    "attention": ("attention", {"BATCH": 1, "HEADS": 2, "N_CTX": 64, "HEAD_DIM": 16, "BLOCK_M": 16,
                                "BLOCK_N": 16, "dtype": "fp16"}, None),
}

#: catalog kernels whose KernelInfo is shipped (``kernel_infos`` fixture)
INFO_KERNELS = ("vector_add", "vector_mul", "softmax", "softmax_looped", "matmul")


# ------------------------------------------------------------------------------------------------
# Kernels for what the catalog does not show.
@triton.jit
def add_kernel_no_mask(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # BUG: no mask, so the last block reads and writes past the end of the vectors
    x = tl.load(x_ptr + offsets)
    y = tl.load(y_ptr + offsets)
    tl.store(out_ptr + offsets, x + y)


@triton.jit
def add_kernel_overlap(x_ptr, y_ptr, out_ptr, n_elements, STRIDE, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    # BUG: blocks start STRIDE apart but are BLOCK_SIZE long, so neighbouring blocks overlap
    offsets = pid * STRIDE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def copy3d_kernel(x_ptr, y_ptr, R, C, BLOCK: tl.constexpr):
    pid_c = tl.program_id(0)  # which block of columns
    r = tl.program_id(1)  # which row
    b = tl.program_id(2)  # which batch entry
    offs = pid_c * BLOCK + tl.arange(0, BLOCK)
    mask = offs < C
    base = (b * R + r) * C
    v = tl.load(x_ptr + base + offs, mask=mask)
    tl.store(y_ptr + base + offs, v, mask=mask)


@triton.jit
def sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))  # every program updates out[0]: atomics, no race


def _apart(*shapes: tuple[int, ...]) -> list[Any]:
    """Tensors, each followed by a spacer allocation that is no kernel argument, so that a lane
    running past the end of one lands in no argument's storage (an out-of-bounds lane) instead
    of in the next tensor."""
    gen = torch.Generator().manual_seed(0)
    out, spacers = [], []
    for shape in shapes:
        out.append(torch.randn(shape, generator=gen))
        spacers.append(torch.empty(4096))
    out.append(spacers)  # kept alive until the launch is over
    return out


def _extra_launches() -> dict[str, tuple[Callable[[Any], Any], dict[str, Any]]]:
    """name -> (launch(K), values shown) of the kernels above."""
    n, block, stride = 1000, 256, 224

    def no_mask(K):
        x, y, out, _ = _apart((n,), (n,), (n,))
        return K(add_kernel_no_mask)[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)

    def overlap(K):
        x, y, out, _ = _apart((n,), (n,), (n,))
        return K(add_kernel_overlap)[(triton.cdiv(n, stride),)](x, y, out, n, stride, BLOCK_SIZE=block)

    batch, rows, cols, cblock = 3, 4, 100, 32

    def copy3d(K):
        x, y, _ = _apart((batch, rows, cols), (batch, rows, cols))
        return K(copy3d_kernel)[(triton.cdiv(cols, cblock), rows, batch)](x, y, rows, cols, BLOCK=cblock)

    def atomic_sum(K):
        x, out, _ = _apart((n,), (1,))
        return K(sum_kernel)[(triton.cdiv(n, block),)](x, out, n, BLOCK_SIZE=block)

    return {
        "oob": (no_mask, {"N": n, "BLOCK_SIZE": block}),
        "overlap": (overlap, {"N": n, "BLOCK_SIZE": block, "STRIDE": stride}),
        "copy_3d": (copy3d, {"batch": batch, "rows": rows, "cols": cols, "BLOCK": cblock}),
        "atomic_sum": (atomic_sum, {"N": n, "BLOCK_SIZE": block}),
    }


#: fixture names of the traces of the kernels above
EXTRA_TRACES = ("oob", "overlap", "copy_3d", "atomic_sum")


# ------------------------------------------------------------------------------------------------
def _relative(path: str) -> str:
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path


def _normalized(trace: Any) -> Any:
    trace.source_file = _relative(trace.source_file)
    trace.record_s = trace.derive_s = 0.0
    trace.workers = 1
    return trace


def _catalog_trace(name: str) -> Any:
    kernel, values, window = CATALOG_TRACES[name]
    return _normalized(trace_spec(get_spec(kernel), values, seed=0, window=window, workers=1))


def _extra_trace(name: str) -> Any:
    launch, values = _extra_launches()[name]
    trace = _normalized(trace_launch(launch, kernel=name, values=dict(values), workers=1))
    for r in trace.oob:  # an overrun must land past its own tensor, in no other one
        if r.nearest_tensor not in [t.name for t in trace.tensors]:
            raise RuntimeError(f"{name}: an out-of-bounds lane near {r.nearest_tensor!r}")
    return trace


def _kernel_infos() -> list[Any]:
    infos = []
    for kernel in INFO_KERNELS:
        info = get_spec(kernel).info()
        infos.append(dataclasses.replace(info, source_file=_relative(info.source_file)))
    return infos


def names() -> list[str]:
    """Every fixture this module writes."""
    return [*CATALOG_TRACES, *EXTRA_TRACES, "kernel_infos"]


def build(name: str) -> Any:
    """The object fixture ``name`` holds, made afresh from the kernels."""
    if name in CATALOG_TRACES:
        return _catalog_trace(name)
    if name in EXTRA_TRACES:
        return _extra_trace(name)
    if name == "kernel_infos":
        return _kernel_infos()
    raise KeyError(f"no fixture {name!r}; one of {', '.join(names())}")


def dumps(obj: Any) -> bytes:
    """Gzipped pickle, byte-identical for equal objects (no timestamp in the gzip header)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as f:
        pickle.dump(obj, f, protocol=4)
    return buf.getvalue()


def write(name: str, directory: Path = FIXTURE_DIR) -> Path:
    path = directory / f"{name}{SUFFIX}"
    directory.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dumps(build(name)))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernels.trace.demo_fixtures", description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"fixtures to write (default: all of {', '.join(names())})")
    parser.add_argument("--out", type=Path, default=FIXTURE_DIR, help="directory (default: resources/demo)")
    args = parser.parse_args(argv)
    total = 0
    for name in args.names or names():
        path = write(name, args.out)
        size = path.stat().st_size
        total += size
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}  {size / 1024:.1f} KiB")
    print(f"{total / 1024:.1f} KiB in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
