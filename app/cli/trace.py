"""``tilescope trace KERNEL``: record which program touched which element, headless.

Runs the kernel under Triton's interpreter with every load and store observed
(``kernels.trace``), prints a summary (grid, programs, accesses per tensor, masked lanes,
out-of-bounds records with source lines, multiply-written elements) and optionally writes a PNG
(program grid + tile maps), a JSON summary and an NPZ of the raw arrays.

Parameters are given as for ``run`` (``--param``, ``--shape``, ``--num-warps``, ``--num-stages``,
``--dtype``, ``--file``). ``--window A:B`` (linear program ids) or ``--window x0:x1,y0:y1`` (a box
of the grid) traces only those programs.

Exit status: 0 traced; 1 the kernel failed under the interpreter; 2 bad input. Failures print one
``error:`` line on stderr. No Qt is imported.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .common import EXIT_OK, CliError, error_exit, stderr_progress
from .options import add_value_args, collect_values, get_spec
from .output import to_jsonable

__all__ = ["add_parser", "cmd_trace", "trace_summary", "trace_arrays"]


def add_parser(subparsers: Any) -> None:
    """Register the ``trace`` verb."""
    p = subparsers.add_parser("trace", help="record which program touched which element (interpreter)",
                              description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_value_args(p, block=256, n=1000, launch_note=" (no effect under the interpreter)")
    p.add_argument("--seed", type=int, default=0, help="input random seed")
    p.add_argument("--backend", "-b", default="interpreter", choices=("interpreter", "gpu"),
                   help="interpreter: replay on the CPU (default); gpu: an instrumented build of the kernel "
                        "records the maps on the GPU (every program, full size)")
    p.add_argument("--timeline", action="store_true",
                   help="with --backend gpu: each program's SM and start/end time only (nearly free)")
    p.add_argument("--file", "-f", metavar="PATH", help="a kernel file that registers the kernel")
    p.add_argument("--window", "-w", metavar="A:B|x0:x1,y0:y1",
                   help="trace only these programs: linear ids A..B-1, or a box of the grid")
    p.add_argument("--n-sms", type=int, default=132, help="SMs for the wave model (H200: 132)")
    p.add_argument("--programs-per-sm", type=int, default=1, help="resident programs per SM (wave model)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="processes recording parts of the grid (default: as many CPUs as useful; 1: this one)")
    p.add_argument("--check-overflow", action="store_true",
                   help="debug run: int32 overflow and tl.device_assert raise (slower)")
    p.add_argument("--png", metavar="PATH", help="write the program grid and tile maps to this PNG")
    p.add_argument("--wave", type=int, metavar="W", help="in the PNG, highlight wave W and what it touches")
    p.add_argument("--json", nargs="?", const="-", metavar="PATH",
                   help="write a JSON summary to PATH (alone: print it instead of the text summary)")
    p.add_argument("--npz", metavar="PATH", help="write the raw arrays (events, maps, stats) to this .npz")
    p.add_argument("--max-oob", type=int, default=10, help="out-of-bounds records to print")
    p.add_argument("--verbose", "-v", action="store_true", help="print error details")
    p.set_defaults(func=cmd_trace)


def _check_args(args: argparse.Namespace) -> None:
    from kernels.data.trace import Window

    if args.n_sms < 1 or args.programs_per_sm < 1:
        raise CliError("--n-sms and --programs-per-sm must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise CliError("--workers must be at least 1")
    if args.window:
        try:
            Window.parse(args.window)
        except ValueError as e:
            raise CliError(str(e)) from None


def cmd_trace(args: argparse.Namespace) -> int:
    from kernels.trace import TraceRequest, trace

    _check_args(args)
    spec = get_spec(args)
    values = collect_values(args, spec)
    req = TraceRequest(kernel=spec.name, values=values, seed=args.seed, window=args.window,
                       user_file=args.file, n_sms=args.n_sms, programs_per_sm=args.programs_per_sm,
                       workers=args.workers, check_overflow=args.check_overflow)
    progress = stderr_progress(end_stage="deriving") if sys.stderr.isatty() else None
    if args.backend == "gpu":
        return _trace_on_gpu(args, req)
    if args.timeline:
        raise CliError("--timeline needs --backend gpu (the interpreter has no SMs or clocks to read)")
    res = trace(req, progress=progress)
    if res.error is not None:
        return error_exit(res.error, args.verbose)
    tr = res.trace
    return _report(args, tr)


def _trace_on_gpu(args: argparse.Namespace, req: Any) -> int:
    from kernels.gpu_trace import gpu_trace, require_cuda
    from kernels.trace import summary_lines

    try:
        require_cuda()
    except Exception as e:  # noqa: BLE001 - one clear line, exit 2
        raise CliError(getattr(e, "message", str(e))) from None
    res = gpu_trace(req, timeline_only=args.timeline)
    if res.error is not None:
        return error_exit(res.error, args.verbose)
    if res.timeline is not None:
        print("\n".join(res.timeline.summary_lines()))
    if res.trace is not None:
        print("\n".join(summary_lines(res.trace, max_oob=args.max_oob)))
        for path in _write_files(args, res.trace):
            print(f"wrote {path}")
    return EXIT_OK


def _report(args: argparse.Namespace, tr: Any) -> int:
    from kernels.trace import summary_lines

    if args.wave is not None and not 0 <= args.wave <= int(tr.wave.max()):
        raise CliError(f"--wave {args.wave}: the trace has waves 0..{int(tr.wave.max())}")
    written = _write_files(args, tr)
    if args.json == "-":
        print(json.dumps(trace_summary(tr), indent=2, allow_nan=False))
    else:
        print("\n".join(summary_lines(tr, max_oob=args.max_oob)))
        for path in written:
            print(f"wrote {path}")
    return EXIT_OK


def _write_files(args: argparse.Namespace, tr: Any) -> list[str]:
    """The --png, --npz and --json PATH files asked for; their paths."""
    written = []
    if args.png:
        from kernels.trace.render import render_png

        written.append(render_png(tr, args.png, wave=args.wave))
    if args.npz:
        import numpy as np

        np.savez_compressed(args.npz, **trace_arrays(tr))
        written.append(args.npz)
    if args.json and args.json != "-":
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(trace_summary(tr), fh, indent=2, allow_nan=False)
        written.append(args.json)
    return written


def trace_summary(tr: Any) -> dict[str, Any]:
    """JSON-ready summary: launch facts, per-tensor counts, OOB records, per-program stats."""
    import numpy as np

    from kernels.data.trace import OP_ATOMIC, OP_LOAD, OP_STORE

    ev = tr.events
    tensors = []
    for t, (info, m) in enumerate(zip(tr.tensors, tr.maps, strict=True)):
        of_t = ev.tensor == t
        tensors.append({
            **to_jsonable(info),
            "loads": int(np.count_nonzero(of_t & (ev.op == OP_LOAD))),
            "stores": int(np.count_nonzero(of_t & (ev.op == OP_STORE))),
            "atomics": int(np.count_nonzero(of_t & (ev.op == OP_ATOMIC))),
            "elements_read": int(np.count_nonzero(m.n_reads)),
            "elements_written": int(np.count_nonzero(m.n_writes)),
            "never_written": int(np.count_nonzero(m.never_written)),
            "multiply_written": int(np.count_nonzero(m.multiply_written)),
            "max_reads": int(m.n_reads.max()) if m.n_reads.size else 0,
        })
    return {
        "kernel": tr.kernel, "kernel_fn": tr.kernel_fn, "values": to_jsonable(tr.values),
        "grid": list(tr.grid), "n_programs": tr.n_programs, "traced": int(tr.programs.size),
        "window": tr.window, "scalars": to_jsonable(tr.scalars), "constexprs": to_jsonable(tr.constexprs),
        "source_file": tr.source_file, "loop_lines": tr.loop_lines, "loop_parents": tr.loop_parents,
        "n_accesses": len(ev), "n_lanes": int(ev.elements.size),
        "masked_lanes": int(ev.n_masked.sum()), "oob_lanes": int(ev.n_oob.sum()),
        "tensors": tensors, "oob": to_jsonable(tr.oob),
        "n_sms": tr.n_sms, "programs_per_sm": tr.programs_per_sm,
        "programs": {
            "pid": tr.programs.tolist(), "wave": tr.wave.tolist() if tr.wave is not None else [],
            "bytes_loaded": tr.stats.bytes_loaded.tolist(), "bytes_stored": tr.stats.bytes_stored.tolist(),
            "masked_fraction": [round(float(v), 6) for v in tr.stats.masked_fraction],
            "n_oob": tr.stats.n_oob.tolist(),
        },
        "triton_version": tr.triton_version, "record_s": round(tr.record_s, 4), "derive_s": round(tr.derive_s, 4),
    }


def trace_arrays(tr: Any) -> dict[str, Any]:
    """The raw arrays, named for ``numpy.savez``: ``events_*``, ``<tensor>_<map>``, ``stats_*``."""
    import numpy as np

    ev = tr.events
    out: dict[str, Any] = {f"events_{k}": getattr(ev, k) for k in
                           ("program", "op", "tensor", "line", "iters", "n_active", "n_masked", "n_oob",
                            "lane_start", "elements")}
    out["programs"] = tr.programs
    out["wave"] = tr.wave if tr.wave is not None else np.zeros(0, np.int32)
    out["grid"] = np.array(tr.grid)
    for k in ("bytes_loaded", "bytes_stored", "masked_fraction", "n_oob"):
        out[f"stats_{k}"] = getattr(tr.stats, k)
    for info, m in zip(tr.tensors, tr.maps, strict=True):
        safe = "".join(c if c.isalnum() or c == "_" else "_" for c in info.name)
        for k in ("writer", "reader", "n_reads", "n_writes", "n_readers", "n_atomic"):
            v = getattr(m, k)
            if v is not None:
                out[f"{safe}_{k}"] = v
    return out
