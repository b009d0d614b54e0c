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

from kernels.data.backends import GPU, INTERPRETER

from .common import EXIT_FAILED, EXIT_OK, CliError, check_writable, error_exit, stderr_progress
from .options import add_value_args, collect_values, get_spec
from .output import to_jsonable
from .remote import compute

__all__ = ["add_parser", "cmd_trace", "trace_summary", "trace_arrays"]

#: the wave model's SMs and programs per SM (past this a product overflows int64 in numpy)
_MAX_MODEL = 1_000_000
#: recording processes one trace may fork
_MAX_WORKERS = 64


def add_parser(subparsers: Any) -> None:
    """Register the ``trace`` verb."""
    p = subparsers.add_parser("trace", help="record which program touched which element (interpreter)",
                              description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_value_args(p, block=256, n=1000, launch_note=" (no effect under the interpreter)")
    p.add_argument("--seed", type=int, default=0, help="input random seed")
    p.add_argument("--backend", "-b", default=INTERPRETER, choices=(INTERPRETER, GPU),
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
    p.add_argument("--step", type=int, metavar="K",
                   help="in the PNG, only the accesses of step K (1..n, as the window's loop slider counts: "
                        "\"step 1 of 8\") of the kernel's first loop (matmul: the A and B tiles of that K step)")
    p.add_argument("--json", nargs="?", const="-", metavar="PATH",
                   help="write a JSON summary to PATH (alone: print it instead of the text summary)")
    p.add_argument("--npz", metavar="PATH", help="write the raw arrays (events, maps, stats) to this .npz")
    p.add_argument("--max-oob", type=int, default=10, help="out-of-bounds records to print")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="trace in a worker process and stop it after SECONDS (a kernel file is always "
                        "loaded in a worker)")
    p.add_argument("--verbose", "-v", action="store_true", help="print error details")
    p.set_defaults(func=cmd_trace)


def _check_args(args: argparse.Namespace) -> None:
    from kernels.data.trace import Window

    for option, path in (("--png", args.png), ("--npz", args.npz),
                         ("--json", args.json if args.json != "-" else None)):
        if path:
            check_writable(path, option)
    if not (1 <= args.n_sms <= _MAX_MODEL and 1 <= args.programs_per_sm <= _MAX_MODEL):
        raise CliError(f"--n-sms and --programs-per-sm must be between 1 and {_MAX_MODEL:,}")
    if args.workers is not None and not 1 <= args.workers <= _MAX_WORKERS:
        raise CliError(f"--workers must be between 1 and {_MAX_WORKERS}")
    if args.step is not None and (args.step < 1 or not args.png):
        raise CliError(f"--step {args.step}: give a step from 1 (the first), with --png PATH (the PNG shows that step)")
    if args.window:
        try:
            Window.parse(args.window)
        except ValueError as e:
            raise CliError(str(e)) from None


def cmd_trace(args: argparse.Namespace) -> int:
    from kernels.trace import TraceRequest

    _check_args(args)
    if args.timeline and args.backend != GPU:
        raise CliError("--timeline needs --backend gpu (the interpreter has no SMs or clocks to read)")
    spec = get_spec(args)
    values = collect_values(args, spec)
    # --timeline alone: the schedule only (the light build); the maps build brings its own
    req = TraceRequest(kernel=spec.name, values=values, seed=args.seed, window=args.window,
                       user_file=args.file, n_sms=args.n_sms, programs_per_sm=args.programs_per_sm,
                       workers=args.workers, check_overflow=args.check_overflow, backend=args.backend,
                       timeline=args.timeline, maps=not args.timeline)
    progress = stderr_progress(end_stage="deriving") if sys.stderr.isatty() else None
    # one routing for both backends (kernels.engine.trace_router.serve_trace), here or in the worker
    res = compute("trace", req, args, progress=progress)
    if res.error is not None:
        return error_exit(res.error, args.verbose)
    if args.backend == GPU:
        return _report_gpu(args, res)
    return _report(args, res.trace)


def _report_gpu(args: argparse.Namespace, res: Any) -> int:
    from kernels.trace import summary_lines

    if res.timeline is not None:
        print("\n".join(res.timeline.summary_lines()))
    if res.trace is not None:
        print("\n".join(summary_lines(res.trace, max_oob=args.max_oob)))
        return _write_all(args, res.trace)
    return EXIT_OK


def _report(args: argparse.Namespace, tr: Any) -> int:
    from kernels.trace import summary_lines

    if args.wave is not None and not 0 <= args.wave <= int(tr.wave.max()):
        raise CliError(f"--wave {args.wave}: the trace has waves 0..{int(tr.wave.max())}")
    if args.json == "-":
        print(json.dumps(trace_summary(tr), indent=2, allow_nan=False))
        return _write_all(args, tr, quiet=True)
    print("\n".join(summary_lines(tr, max_oob=args.max_oob)))
    return _write_all(args, tr)


def _write_all(args: argparse.Namespace, tr: Any, quiet: bool = False) -> int:
    """Write the files asked for; a file that fails mid-write (the disk filled, the folder went
    away) does not lose the trace: it is kept as a pickle in the temporary folder, and the one
    error line says where. The other files are still written."""
    if args.step is not None:  # a step the trace has not: one line, before any file is written
        _check_step(tr, args.step)
    written, failed = _write_files(args, tr)
    for path in written if not quiet else ():
        print(f"wrote {path}")
    if not failed:
        return EXIT_OK
    kept = _keep(tr)
    what = "; ".join(f"{option} {path}: {why}" for option, path, why in failed)
    where = f"the trace is kept in {kept} (pickle.load it)" if kept else "the trace could not be kept either"
    print(f"error: could not write {what} ({where})", file=sys.stderr)
    return EXIT_FAILED


def _check_step(tr: Any, step: int) -> None:
    """CliError (one line) unless the trace's first loop has step ``step``, counted from 1."""
    from kernels.trace.render import loop_steps, loop_where

    n = loop_steps(tr)
    if n == 0:
        raise CliError(f"--step {step}: {tr.kernel} has no loop to step through (no access was made in a loop)")
    if step > n:
        raise CliError(f"--step {step} is out of range: {loop_where(tr, 0)} ran steps 1..{n}")


def _write_files(args: argparse.Namespace, tr: Any) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The --png, --npz and --json PATH files asked for: (paths written, (option, path, why) of
    those that failed)."""
    def png(path: str) -> None:
        from kernels.trace.render import render_png

        render_png(tr, path, wave=args.wave, step=None if args.step is None else args.step - 1)  # 0-based there

    def npz(path: str) -> None:
        import numpy as np

        np.savez_compressed(path, **trace_arrays(tr))

    def summary(path: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(trace_summary(tr), fh, indent=2, allow_nan=False)

    written, failed = [], []
    for option, path, write in (("--png", args.png, png), ("--npz", args.npz, npz),
                                ("--json", args.json if args.json != "-" else None, summary)):
        if not path:
            continue
        try:
            write(path)
            written.append(path)
        except OSError as e:
            failed.append((option, path, e.strerror or str(e)))
    return written, failed


def _keep(tr: Any) -> str | None:
    """Pickle the trace into the temporary folder; its path (None when that fails too)."""
    import pickle
    import tempfile
    import time

    try:
        fd, path = tempfile.mkstemp(prefix=f"tilescope-trace-{tr.kernel.replace('/', '_')}-{time.strftime('%H%M%S')}-",
                                    suffix=".pkl")
        with open(fd, "wb") as fh:
            pickle.dump(tr, fh, protocol=pickle.HIGHEST_PROTOCOL)
        return path
    except (OSError, pickle.PicklingError):
        return None


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
