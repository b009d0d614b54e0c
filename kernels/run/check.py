"""Correctness: a kernel's outputs against a reference computed in float64.

The engine fills every floating output with NaN before the launch, so an element the kernel
never stored is still NaN afterwards: ``n_unwritten`` counts those where the reference is finite.
Everything here is vectorized torch on the output's device (the GPU for GPU runs), and only the
per-element error map travels back, as float32 numpy.

Definitions (per output):
  diff          |out - ref| in float64; 0 where out and ref are the same non-finite value
                (both NaN, or the same infinity: softmax of a fully masked row is NaN by design)
  max_abs_err   max of diff over elements whose output is not NaN (NaN outputs are reported as
                unwritten / NaN instead of turning the maximum into NaN)
  rel_err       ||diff|| / ||ref|| over the same elements (finite reference values only)
  n_mismatch    elements where not (diff <= atol + rtol * |ref|) — a NaN diff counts
  n_unwritten   output NaN where the reference is finite
  error_map     float32 diff, +inf where unwritten; above MAX_ERROR_MAP_ELEMENTS elements it is
                downsampled by blocks (max per block, so one bad element still shows) and
                ``error_map_stride`` gives the block. The limit is what a screen can show, not
                what a pipe can carry: the correctness panel is a few hundred pixels wide, and
                colouring a map far larger than that stalls the GUI thread (figures:
                docs/benchmarks/transport.md)
  ref_rms       sqrt(mean |ref|^2) over the measured elements: with a downsampled map the view
                cannot estimate the typical |ref| itself, and needs it for its tolerance scale
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch

from ..data.results import CheckResult

__all__ = ["MAX_ERROR_MAP_ELEMENTS", "block_max", "check_outputs", "compare", "map_stride", "poison"]

#: the largest error map kept at full resolution (512 x 512 cells, 1 MiB of float32); larger
#: ones are downsampled by blocks in the worker, so the window never receives or colours more
MAX_ERROR_MAP_ELEMENTS = 1 << 18


def poison(tensors: Mapping[str, torch.Tensor], outputs: Sequence[str]) -> None:
    """Fill the floating outputs with NaN so that elements the kernel never writes stay NaN."""
    for name in outputs:
        t = tensors.get(name)
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            t.fill_(float("nan"))


def _count(mask: torch.Tensor) -> int:
    """True elements of a bool tensor (count_nonzero: faster than sum on the CPU, see
    docs/benchmarks/transport.md)."""
    return int(torch.count_nonzero(mask).item())


def compare(out: torch.Tensor, ref: torch.Tensor, atol: float, rtol: float, name: str = "out",
            dtype: str = "", keep_map: bool = True) -> CheckResult:
    """Compare one output with its reference. Never raises for bad values; a shape mismatch is
    a failed check with the reason."""
    n = int(out.numel())
    if tuple(out.shape) != tuple(ref.shape):
        return CheckResult(
            passed=False, output=name, dtype=dtype, max_abs_err=math.inf, rel_err=math.inf,
            atol=atol, rtol=rtol, n_elements=n, n_mismatch=n, n_unwritten=0, n_nan=0, n_inf=0,
            reason=f"{name}: shape {tuple(out.shape)} differs from the reference's {tuple(ref.shape)}")
    # float64 copies, then in-place work: a check of N elements peaks near 3 float64 arrays
    o = out.detach().to(torch.float64, copy=True)
    r = ref.detach().to(device=out.device, dtype=torch.float64)

    out_nan = torch.isnan(o)
    ref_finite = torch.isfinite(r)
    unwritten = out_nan & ref_finite
    same_nonfinite = (out_nan & torch.isnan(r)) | (torch.isinf(o) & (o == r))
    n_nan = _count(out_nan)
    n_inf = _count(torch.isinf(o))
    n_unwritten = _count(unwritten)

    diff = o.sub_(r).abs_()  # reuses o's storage
    diff.masked_fill_(same_nonfinite, 0.0)
    del same_nonfinite
    tol = r.abs().mul_(rtol).add_(atol)
    tol.masked_fill_(~ref_finite, 0.0)  # a non-finite reference is matched exactly or not at all
    # NaN diff (out NaN, or ref NaN against a number) fails this comparison: a mismatch
    n_mismatch = _count(~(diff <= tol))
    del tol

    if n:
        d = diff.masked_fill(out_nan, 0.0).nan_to_num_(nan=math.inf, posinf=math.inf)  # measured: outputs not NaN
        max_abs = float(d.max().item())
        d.masked_fill_(~ref_finite, 0.0)
        num = float(torch.linalg.vector_norm(d).item())
        del d
        measured = ~out_nan & ref_finite
        n_measured = _count(measured)
        rf = r.masked_fill(~measured, 0.0)
        del measured
        den = float(torch.linalg.vector_norm(rf).item())
        del rf
    else:
        max_abs = num = den = 0.0
        n_measured = 0
    rel = num / den if den > 0 else (0.0 if num == 0 else math.inf)
    ref_rms = den / math.sqrt(n_measured) if n_measured else None

    error_map = None
    stride: tuple[int, ...] = ()
    if keep_map:
        stride = map_stride(tuple(out.shape), MAX_ERROR_MAP_ELEMENTS)  # read now: tests lower it
        if stride:
            diff.masked_fill_(unwritten, math.inf)
            m = block_max(diff, stride).to(torch.float32)
        else:
            m = diff.to(torch.float32)
            m.masked_fill_(unwritten, math.inf)
        error_map = np.ascontiguousarray(m.cpu().numpy())

    passed = n_mismatch == 0
    reason = ""
    if not passed:
        if n_unwritten:
            reason = (f"{name}: {n_unwritten} of {n} elements are still NaN where the reference is "
                      f"finite — never written (the output was poisoned with NaN) or computed as NaN")
            if n_mismatch > n_unwritten:
                reason += f"; {n_mismatch - n_unwritten} more differ beyond tolerance"
        else:
            reason = (f"{name}: {n_mismatch} of {n} elements differ by more than "
                      f"atol + rtol·|ref| (atol={atol:g}, rtol={rtol:g}); max abs error {max_abs:.3g}")
    elif n_nan or n_inf:
        reason = f"{name}: passed; {n_nan} NaN and {n_inf} inf values match the reference's"
    return CheckResult(
        passed=passed, output=name, dtype=dtype, max_abs_err=max_abs, rel_err=rel, atol=atol,
        rtol=rtol, n_elements=n, n_mismatch=n_mismatch, n_unwritten=n_unwritten, n_nan=n_nan,
        n_inf=n_inf, error_map=error_map, reason=reason, error_map_stride=stride, ref_rms=ref_rms)


def map_stride(shape: tuple[int, ...], limit: int = MAX_ERROR_MAP_ELEMENTS) -> tuple[int, ...]:
    """Per-dimension block sizes that bring an error map of ``shape`` to at most ``limit``
    elements; () when it fits whole. The longest reduced dimension is halved first, so a 2-D
    map keeps its aspect and a 1-D one stays 1-D."""
    if math.prod(shape) <= limit or not shape:
        return ()
    stride = [1] * len(shape)

    def reduced(i: int) -> int:
        return -(-shape[i] // stride[i])

    while math.prod(reduced(i) for i in range(len(shape))) > limit:
        i = max(range(len(shape)), key=reduced)
        stride[i] *= 2
    return tuple(stride)


def block_max(t: torch.Tensor, stride: tuple[int, ...]) -> torch.Tensor:
    """The maximum over each block of ``stride`` elements (a partial block at the end of a
    dimension counts too). NaN propagates. Works one dimension at a time, so the memory beyond
    ``t`` is at most ``t``'s size divided by the first stride."""
    for d, s in enumerate(stride):
        if s <= 1:
            continue
        n = t.shape[d]
        q, r = divmod(n, s)
        parts = []
        if q:
            main = t.narrow(d, 0, q * s)
            parts.append(main.reshape(*t.shape[:d], q, s, *t.shape[d + 1:]).amax(dim=d + 1))
        if r:
            parts.append(t.narrow(d, q * s, r).amax(dim=d, keepdim=True))
        t = parts[0] if len(parts) == 1 else torch.cat(parts, dim=d)
    return t


def check_outputs(tensors: Mapping[str, torch.Tensor], refs: Mapping[str, torch.Tensor],
                  outputs: Sequence[str], atol: float, rtol: float, dtype: str = "",
                  keep_map: bool = True) -> CheckResult:
    """Check every output named in ``outputs`` that the reference provides. The first is the
    primary result; the others go to ``.others``. ``passed`` is true only if all pass."""
    names = [o for o in outputs if o in refs]
    missing = [o for o in outputs if o not in refs]
    if not names:
        raise ValueError(f"the reference returned none of the outputs {list(outputs)} "
                         f"(it returned {sorted(refs)})")
    results = [compare(tensors[o], refs[o], atol, rtol, o, dtype, keep_map) for o in names]
    primary = results[0]
    primary.others = results[1:]
    failed = [r for r in results if not r.passed]
    if failed and failed[0] is not primary:  # the primary passed but another output did not
        primary.passed = False
        primary.reason = failed[0].reason
    if missing and not primary.reason:
        primary.reason = f"not checked (no reference): {', '.join(missing)}"
    return primary
