"""What the advisor's rules read, gathered once: the compile for the target, where the spills sit,
the layout engine's sectors per request, the trace's masked lanes and, on a GPU, one timed run.

Every source is one Tilescope already has:

- ``kernels.compile.target.compile_for_target``: registers, spills, shared memory, occupancy and
  waves for the target's limits (no GPU needed);
- the cubin of that compile disassembled with line info (``nvdisasm --print-line-info``, bundled
  with Triton): each ``STL`` / ``LDL`` (a spill store or load) counted under the Triton source line
  ptxas attributes it to;
- ``kernels.layout.service.layout_spec`` over the first programs: each global access's requests,
  sectors and vector width;
- ``kernels.trace.service.trace_spec`` over the first and the last programs: lanes masked off,
  by source line;
- on a GPU, ``kernels.engine.run``: the timing, and the measured roofs beside it.

A source that fails leaves its field None and says why in ``not_checked``: the rules that need it
are skipped, the others still run.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any

from ..data.errors import first_line
from ..data.results import CompileFacts
from ..run import device

__all__ = ["Gathered", "MaskSample", "Sampled", "gather", "sample", "spill_lines", "target_limits"]


@dataclass
class MaskSample:
    """Lanes of the sampled programs' loads and stores: ``active`` / ``masked`` per source line,
    ``programs`` sampled of ``total`` programs, and ``first_masked`` / ``first_lanes``: masked and
    all lanes of the programs sampled at the start (what the middle of the grid is taken to be)."""

    by_line: dict[int, tuple[int, int]]  # line -> (active lanes, masked lanes)
    programs: int
    total: int
    first_programs: int = 0
    first_masked: int = 0
    first_lanes: int = 0
    last_masked: int = 0
    last_lanes: int = 0
    last_programs: int = 0

    def launch_fraction(self) -> float:
        """Masked lanes over all lanes of the whole launch: the first sample stands for every
        program but the last ones sampled."""
        middle = max(0, self.total - self.last_programs)
        per_first = self.first_lanes / self.first_programs if self.first_programs else 0.0
        per_first_masked = self.first_masked / self.first_programs if self.first_programs else 0.0
        lanes = per_first * middle + self.last_lanes
        return (per_first_masked * middle + self.last_masked) / lanes if lanes else 0.0


@dataclass
class Gathered:
    """Everything the rules read for one kernel at one set of values."""

    spec: Any
    cfg: dict[str, Any]
    target: str
    facts: CompileFacts
    limits: device.DeviceLimits
    n_programs: int
    source_file: str = ""
    spills: dict[int, int] | None = None  # source line -> spill instructions (STL + LDL)
    stack_bytes: int = 0  # per thread, from the cubin's resource usage
    layout: Any = None  # kernels.data.layout.LayoutResult over the first programs
    masks: MaskSample | None = None
    run: Any = None  # kernels.data.results.RunResult on a GPU
    timeline: Any = None  # kernels.data.gpu_trace.Timeline on a GPU: each program's SM and time
    not_checked: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def param(self, kind: str) -> list[str]:
        """Names of the spec's parameters of ``kind`` ("constexpr", "launch", "shape", ...)."""
        return [p.name for p in self.spec.params if p.kind == kind]


def target_limits(target: str, n_sms: int | None = None) -> device.DeviceLimits:
    """The per-SM limits of ``target`` ("sm_90"), with the SM count of the well-known GPU of that
    architecture (132 for sm_90: H100 and H200) unless ``n_sms`` is given."""
    from ..compile.target import parse_target

    cap = parse_target(target)
    major, minor = divmod(cap, 10)
    ref = device.reference_gpu(major, minor)
    return device.limits_for_capability(major, minor, n_sms or (ref[1] if ref else 132))


_LINE_INFO = re.compile(r'//## File "([^"]+)", line (\d+)')
_SPILL = re.compile(r"\b(STL|LDL)(\.\w+)*\b")


def spill_lines(sass_with_lines: str, source_file: str) -> dict[int, int]:
    """Spill instructions (``STL`` / ``LDL``) per line of ``source_file`` in ``nvdisasm
    --print-line-info`` output; an instruction ptxas attributes to another file (Triton's own
    ``standard.py``, say) counts under the last line of ``source_file`` seen before it."""
    counts: collections.Counter[int] = collections.Counter()
    base = os.path.basename(source_file) if source_file else ""
    current = -1
    for text in sass_with_lines.splitlines():
        m = _LINE_INFO.search(text)
        if m:
            if not base or os.path.basename(m.group(1)) == base:
                current = int(m.group(2))
            continue
        if _SPILL.search(text) and current >= 0:
            counts[current] += 1
    return dict(counts)


def _nvdisasm() -> str | None:
    try:
        from triton import knobs

        path = knobs.nvidia.nvdisasm.path
        if path and os.path.isfile(path):
            return path
    except Exception:  # noqa: BLE001 - the knob's name differs across Triton versions
        pass
    import shutil

    return shutil.which("nvdisasm")


def _disassemble_with_lines(cubin: bytes) -> tuple[str, str]:
    tool = _nvdisasm()
    if tool is None:
        return "", "nvdisasm not found (neither Triton's bundled one nor on PATH)"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        try:
            done = subprocess.run([tool, "--print-line-info", "-c", f.name], capture_output=True, text=True,
                                  timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            return "", f"nvdisasm failed: {first_line(str(e))}"
    if done.returncode != 0:
        return "", f"nvdisasm failed: {first_line(done.stderr)}"
    return done.stdout, ""


class _Capture:
    """The ``K`` handed to a spec's launcher: records ``K(fn)[grid](*args, **kw)`` instead of
    launching it (the launch is compiled, never run)."""

    def __init__(self) -> None:
        self.launches: list[tuple[Any, tuple, dict]] = []

    def __call__(self, fn: Any) -> Any:
        rec = self

        class _Bound:
            def __getitem__(self, grid: Any) -> Any:
                def launch(*args: Any, **kwargs: Any) -> None:
                    rec.launches.append((fn, args, kwargs))
                return launch

        return _Bound()


def _cubin(spec: Any, cfg: dict[str, Any], target: str, seed: int) -> bytes | None:
    """The cubin of ``spec``'s launch compiled for ``target`` (Triton's cache serves the compile
    ``compile_for_target`` just made). Inputs on the meta device: only dtypes, strides and
    alignment matter."""
    import torch
    import triton
    from triton.compiler import ASTSource

    from ..compile.target import compile_inputs

    rec = _Capture()
    gen = torch.Generator().manual_seed(seed)
    with torch.device("meta"):
        tensors = spec.make_inputs(cfg, "meta", gen)
        spec.run_launch(rec, tensors, cfg)
    if not rec.launches:
        return None
    fn, args, kwargs = rec.launches[-1]
    jit, signature, constexprs, attrs, options, gpu_target = compile_inputs(fn, args, kwargs, target)
    ck = triton.compile(ASTSource(jit, signature, constexprs, attrs), target=gpu_target, options=options)
    cubin = ck.asm.get("cubin")
    return bytes(cubin) if isinstance(cubin, (bytes, bytearray)) else None


def _add_spills(g: Gathered, seed: int) -> None:
    from ..compile.facts import resource_usage

    try:
        cubin = _cubin(g.spec, g.cfg, g.target, seed)
    except Exception as e:  # noqa: BLE001 - the other rules still run
        g.not_checked.append(f"spill lines: the cubin could not be rebuilt ({first_line(str(e))})")
        return
    if cubin is None:
        g.not_checked.append("spill lines: the compile gave no cubin")
        return
    usage = resource_usage(cubin) or {}
    g.stack_bytes = int(usage.get("STACK", 0)) + int(usage.get("LOCAL", 0))
    text, why = _disassemble_with_lines(cubin)
    if not text:
        g.not_checked.append(f"spill lines: {why}")
        return
    g.spills = spill_lines(text, g.source_file)


def _windows(total: int, k: int) -> tuple[str, str | None]:
    """The first ``k`` programs, and the last ``k`` when they are others."""
    if total <= 2 * k:
        return f"0:{total}", None
    return f"0:{k}", f"{total - k}:{total}"


def _mask_sample(g: Gathered, seed: int, k: int) -> MaskSample:
    from ..data.trace import OP_LOAD, OP_STORE
    from ..trace.service import trace_spec

    first, last = _windows(g.n_programs, k)
    sample = MaskSample(by_line={}, programs=0, total=g.n_programs)
    for which, window in (("first", first), ("last", last)):
        if window is None:
            continue
        tr = trace_spec(g.spec, g.cfg, seed=seed, window=window)
        ev = tr.events
        keep = (ev.op == OP_LOAD) | (ev.op == OP_STORE)
        active, masked = int(ev.n_active[keep].sum()), int(ev.n_masked[keep].sum())
        for line in set(ev.line[keep].tolist()):
            sel = keep & (ev.line == line)
            a, m = sample.by_line.get(int(line), (0, 0))
            sample.by_line[int(line)] = (a + int(ev.n_active[sel].sum()), m + int(ev.n_masked[sel].sum()))
        n = int(len(tr.programs))
        sample.programs += n
        if which == "first":
            sample.first_programs, sample.first_masked, sample.first_lanes = n, masked, active + masked
            if last is None:  # every program sampled: the "last" sample is empty
                sample.last_programs, sample.last_masked, sample.last_lanes = n, masked, active + masked
        else:
            sample.last_programs, sample.last_masked, sample.last_lanes = n, masked, active + masked
        g.source_file = g.source_file or tr.source_file
    return sample


@dataclass
class Sampled:
    """The part of ``Gathered`` that needs no GPU — the compile for the target, the layout, the
    masked lanes and the spill lines — picklable, so that another process (a pool of CPU workers
    beside the one process that times the GPU) can take it and ``gather(..., sampled=)`` use it."""

    cfg: dict[str, Any]
    facts: CompileFacts
    notes: list[str]
    source_file: str = ""
    layout: Any = None
    masks: MaskSample | None = None
    spills: dict[int, int] | None = None
    stack_bytes: int = 0
    not_checked: list[str] = field(default_factory=list)


def sample(spec: Any, values: dict[str, Any], target: str = "sm_90", *, seed: int = 0, programs: int = 8,
           cancel: Any = None) -> Sampled:
    """Compile ``spec`` at ``values`` (defaults fill the rest) for ``target`` and sample
    ``programs`` programs at each end of the grid on the interpreter: what every rule but the
    GPU's own (timing, timeline) reads. Raises ValidationError for bad values, CompileError when
    the kernel does not compile."""
    from ..compile.target import compile_for_target

    cfg = spec.config(dict(values or {}))
    limits = target_limits(target)
    facts, notes = compile_for_target(spec, cfg, target, keep_asm=True, limits=limits)
    g = Gathered(spec=spec, cfg=cfg, target=target, facts=facts, limits=limits, n_programs=facts.n_programs,
                 notes=[n for n in notes if "no GPU" not in n])
    steps = [("layout", lambda: _add_layout(g, seed, programs)),
             ("masked lanes", lambda: setattr(g, "masks", _mask_sample(g, seed, programs))),
             ("spills", lambda: _add_spills(g, seed) if _spilled(g) else None)]
    _steps(g, steps, cancel)
    return Sampled(cfg=cfg, facts=facts, notes=g.notes, source_file=g.source_file, layout=g.layout, masks=g.masks,
                   spills=g.spills, stack_bytes=g.stack_bytes, not_checked=g.not_checked)


def _steps(g: Gathered, steps: list[tuple[str, Any]], cancel: Any) -> None:
    for name, step in steps:
        if cancel is not None and cancel():
            g.not_checked.append(f"{name}: cancelled")
            break
        try:
            step()
        except Exception as e:  # noqa: BLE001 - one source failing leaves the others
            g.not_checked.append(f"{name}: {first_line(f'{type(e).__name__}: {e}')}")


def gather(spec: Any, values: dict[str, Any], target: str = "sm_90", *, seed: int = 0, programs: int = 8,
           run_on_gpu: Any = None, timeline_on_gpu: Any = None, cancel: Any = None,
           sampled: Sampled | None = None) -> Gathered:
    """Gather the facts for ``spec`` at ``values`` (defaults fill the rest), compiled for
    ``target``; the interpreter samples ``programs`` programs at each end of the grid
    (``sample``; ``sampled``: taken already, perhaps by another process, at the same values).
    ``run_on_gpu(cfg) -> RunResult`` (the engine's run, handed in by the request's handler: the
    advisor sits below the engine) adds the GPU timing, ``timeline_on_gpu(cfg) -> Timeline`` (a GPU
    trace's schedule) the measured tail. Raises ValidationError for bad values,
    CompileError when the kernel does not compile."""
    s = sampled if sampled is not None else sample(spec, values, target, seed=seed, programs=programs,
                                                     cancel=cancel)
    limits = target_limits(target)
    g = Gathered(spec=spec, cfg=dict(s.cfg), target=target, facts=s.facts, limits=limits,
                 n_programs=s.facts.n_programs, source_file=s.source_file, spills=s.spills,
                 stack_bytes=s.stack_bytes, layout=s.layout, masks=s.masks, not_checked=list(s.not_checked),
                 notes=list(s.notes))
    steps = []
    if run_on_gpu is not None:
        steps.append(("timing", lambda: setattr(g, "run", run_on_gpu(dict(g.cfg)))))
    if timeline_on_gpu is not None:
        steps.append(("timeline", lambda: setattr(g, "timeline", timeline_on_gpu(dict(g.cfg)))))
    _steps(g, steps, cancel)
    return g


def _spilled(g: Gathered) -> bool:
    sass = g.facts.asm.get("sass", "")
    return bool(g.facts.n_spills) or bool(_SPILL.search(sass))


def _add_layout(g: Gathered, seed: int, programs: int) -> None:
    from ..layout.service import layout_spec

    res = layout_spec(g.spec, g.cfg, g.target, coalescing=True, programs=f"0:{max(1, programs)}", seed=seed)
    g.layout = res
    g.source_file = res.source_file or g.source_file

