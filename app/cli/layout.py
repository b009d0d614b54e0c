"""``tilescope layout KERNEL``: inside one program — each access's layout (which warp, lane and
register hold each element, read from the compiled TTGIR through Triton's linear layouts), its
vector width, and what it costs: requests and 32-byte sectors per warp instruction for global
accesses (the launch's addresses from the interpreter), bank conflicts for shared ones.

Compiled for ``--target`` (default sm_90) on this machine: no GPU needed. ``--line N`` keeps the
accesses of source line N and prints their thread map; ``--png PATH`` draws the first of the
accesses shown, one cell per element coloured by warp and labelled by lane; ``--programs A:B``
traces only those programs (the numbers then cover those programs); ``--no-coalescing`` skips
the interpreter run.

Exit status: 0 done; 1 the kernel failed to compile or under the interpreter; 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .common import EXIT_OK, CliError, check_writable, error_exit
from .options import add_value_args, collect_values, get_spec
from .output import table
from .remote import compute

__all__ = ["add_parser", "cmd_layout", "layout_lines", "layout_summary", "thread_map_lines"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("layout", help="which thread holds each element, and each access's sectors per request",
                       description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_value_args(p)
    p.add_argument("--file", "-f", metavar="PATH", help="a kernel file or plain Triton script")
    p.add_argument("--target", "-t", default="sm_90", help="the GPU to compile for: sm_80, sm_90, … (no GPU needed)")
    p.add_argument("--line", type=int, metavar="N", help="only the accesses of source line N, with their thread map")
    p.add_argument("--png", metavar="PATH", help="draw the (first) access shown: elements coloured by warp")
    p.add_argument("--programs", metavar="A:B", default="",
                   help="trace only these programs for the coalescing numbers (default: all)")
    p.add_argument("--no-coalescing", action="store_true", help="layouts only: no interpreter run")
    p.add_argument("--seed", type=int, default=0, help="input random seed")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="work in a worker process, stopped after SECONDS")
    p.add_argument("--verbose", "-v", action="store_true", help="print error details")
    p.set_defaults(func=cmd_layout)


def cmd_layout(args: argparse.Namespace) -> int:
    from kernels.data.layout import LayoutRequest

    if args.png:
        check_writable(args.png, "--png")
    spec = get_spec(args)
    values = collect_values(args, spec)
    req = LayoutRequest(kernel=spec.name, values=values, target=args.target, user_file=args.file,
                        coalescing=not args.no_coalescing, programs=args.programs, seed=args.seed)
    res = compute("layout", req, args)
    _quiet_exit()
    if res.error is not None:
        return error_exit(res.error, args.verbose)
    shown = res.accesses if args.line is None else res.at_line(args.line)
    if args.line is not None and not shown:
        lines = sorted({a.line for a in res.accesses})
        raise CliError(f"--line {args.line}: no access of {res.kernel} there (accesses at lines "
                       f"{', '.join(map(str, lines)) or 'none'})")
    if args.json:
        print(json.dumps(layout_summary(res, shown, with_maps=args.line is not None), indent=2))
    else:
        print("\n".join(layout_lines(res, shown)))
        if args.line is not None:
            for a in shown:
                print()
                print("\n".join(thread_map_lines(a)))
    if args.png:
        drawable = [a for a in shown if a.threads is not None]
        if not drawable:
            raise CliError("--png: none of these accesses has a thread map (shared-memory operands have none)")
        from kernels.layout.render import render_png

        render_png(drawable[0], args.png, title=f"{res.kernel} for {res.target}, {res.num_warps} warps")
        if not args.json:
            print(f"wrote {args.png}")
    return EXIT_OK


def _quiet_exit() -> None:
    """Triton 3.9's Gluon builder keeps four ``ir.attribute`` objects alive for the process once
    it has made a layout, and nanobind lists them (with hundreds of lines of its own types) on
    stderr as "leaked" when the interpreter shuts down. After this command's output, stderr is
    pointed at /dev/null for that shutdown only (an exit handler registered now runs before the
    extension modules are torn down)."""
    import atexit
    import os
    import sys

    def close_stderr() -> None:
        try:
            sys.stderr.flush()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
        except OSError:
            pass

    if "triton._C.libtriton" in sys.modules:
        atexit.register(close_stderr)


def _short_layout(a: Any) -> str:
    p = a.layout.params
    if a.layout.kind == "blocked":
        return (f"blocked spt={p['size_per_thread']} tpw={p['threads_per_warp']} wpc={p['warps_per_cta']} "
                f"order={p['order']}")
    if a.layout.kind == "mma":
        return f"mma v{p['version'][0]} wpc={p['warps_per_cta']} instr={p['instr_shape']}"
    if a.layout.kind == "dot_operand":
        parent = a.layout.parent.kind if a.layout.parent else "?"
        return f"dot_op {'AB'[p['op_idx']]} kWidth={p['k_width']} of {parent}"
    if a.layout.kind == "nvmma_shared":
        return f"nvmma_shared swizzle={p['swizzle_bytes']}B{' transposed' if p['transposed'] else ''}"
    if a.layout.kind == "swizzled_shared":
        return f"shared vec={p['vec']} perPhase={p['per_phase']} maxPhase={p['max_phase']} order={p['order']}"
    return a.layout.describe()


def layout_lines(res: Any, accesses: list[Any]) -> list[str]:
    """The table of accesses (layout, vector width, requests, sectors, bank conflicts) and the
    worst ones by wasted bytes."""
    head = (f"{res.kernel} compiled for {res.target} (Triton {res.triton_version}): {res.num_warps} warps x "
            f"{res.threads_per_warp} lanes")
    if res.n_programs:
        head += f"; coalescing over {res.n_programs:,} of {res.grid[0] * res.grid[1] * res.grid[2]:,} programs"
    rows = []
    for a in accesses:
        c, b = a.coalescing, a.bank_conflicts
        cost = ""
        if c is not None and c.requests:
            cost = (f"{c.requests:,} req  {c.sectors:,} sect  {c.sectors_per_request:.1f}/req  ideal {c.ideal_sectors:,}"
                    f"  wasted {c.wasted_bytes:,} B")
        elif b is not None:
            cost = f"{b.wavefronts} wavefronts / {b.instructions} instr (ideal {b.ideal_wavefronts}, conflicts {b.conflicts})"
        shared = f" -> {a.shared_layout.kind}" if a.shared_layout is not None and a.op == "async_copy" else ""
        rows.append((str(a.index), str(a.line), a.op, a.tensor or "-", "x".join(map(str, a.shape)), a.dtype,
                     _short_layout(a) + shared, f"{a.vector_bits}" if a.vector_bits else "-", cost))
    out = [head, table(("#", "line", "op", "tensor", "block", "dtype", "layout", "bits", "cost"), rows)]
    worst = [a for a in res.worst(3) if a in accesses]
    if worst:
        out.append("worst accesses (bytes moved that no lane asked for):")
        out += [f"  line {a.line} {a.op} {a.tensor}: {a.coalescing.wasted_bytes:,} B wasted, "
                f"{a.coalescing.sectors_per_request:.1f} sectors/request (ideal "
                f"{a.coalescing.ideal_sectors / max(1, a.coalescing.requests):.1f})" for a in worst]
    out += [f"note: {n}" for n in res.notes]
    for a in accesses:
        out += [f"note: #{a.index} {n}" for n in a.notes]
    return out


def thread_map_lines(a: Any, max_rows: int = 16, max_cols: int = 16) -> list[str]:
    """Access ``a``'s first elements as warp:lane (register) cells, rows x columns of its block
    (a 1-D block folded into rows of 16)."""
    import numpy as np

    t = a.threads
    if t is None:
        return [f"#{a.index} {a.op}: a shared-memory operand, no threads hold it ({a.layout.describe()})"]
    warp, lane, reg = t.warp, t.lane, t.register
    if warp.ndim == 1:
        n = warp.shape[0]
        cols = min(max_cols, n)
        rows = -(-n // cols)
        pad = rows * cols - n
        warp, lane, reg = (np.r_[x, np.full(pad, -1)].reshape(rows, cols) for x in (warp, lane, reg))
    elif warp.ndim > 2:
        warp, lane, reg = (x.reshape(-1, x.shape[-1]) for x in (warp, lane, reg))
    r, c = min(max_rows, warp.shape[0]), min(max_cols, warp.shape[1])
    lines = [f"#{a.index} line {a.line} {a.op}: element -> warp:lane (register), first {r}x{c} of "
             f"{'x'.join(map(str, a.shape))}; {a.vector_bits or '?'} bits per thread per instruction"]
    for i in range(r):
        cells = [f"{warp[i, j]}:{lane[i, j]:>2}({reg[i, j]})" if warp[i, j] >= 0 else "   -   " for j in range(c)]
        lines.append(" ".join(f"{x:>9}" for x in cells))
    return lines


def layout_summary(res: Any, accesses: list[Any], with_maps: bool = False) -> dict[str, Any]:
    """A JSON-ready summary; ``with_maps`` adds each access's warp / lane / register arrays."""
    out = {"kernel": res.kernel, "target": res.target, "triton": res.triton_version, "num_warps": res.num_warps,
           "programs_traced": res.n_programs, "grid": list(res.grid), "notes": list(res.notes), "accesses": []}
    for a in accesses:
        d: dict[str, Any] = {"index": a.index, "line": a.line, "column": a.column, "op": a.op, "ir_op": a.ir_op,
                             "tensor": a.tensor, "shape": list(a.shape), "dtype": a.dtype,
                             "layout": {"kind": a.layout.kind, **a.layout.params,
                                        "parent": a.layout.parent.describe() if a.layout.parent else None},
                             "shared_layout": a.shared_layout.describe() if a.shared_layout else None,
                             "vector_bits": a.vector_bits, "notes": list(a.notes)}
        c = a.coalescing
        if c is not None:
            d["coalescing"] = {"requests": c.requests, "sectors": c.sectors, "ideal_sectors": c.ideal_sectors,
                               "sectors_per_request": round(c.sectors_per_request, 4), "wasted_bytes": c.wasted_bytes,
                               "bytes_used": c.bytes_used, "programs": c.n_programs}
        b = a.bank_conflicts
        if b is not None:
            d["bank_conflicts"] = {"instructions": b.instructions, "wavefronts": b.wavefronts,
                                   "ideal_wavefronts": b.ideal_wavefronts, "conflicts": b.conflicts}
        if with_maps and a.threads is not None:
            d["warp"], d["lane"], d["register"] = (x.tolist() for x in (a.threads.warp, a.threads.lane,
                                                                         a.threads.register))
        out["accesses"].append(d)
    return out
