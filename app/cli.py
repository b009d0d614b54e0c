"""``tilescope`` on the command line: list, run, bench, sweep (and trace, when present).

The verbs run the engine in this process and print a table or ``--json``; no Qt is imported.
With no verb the GUI opens (``app.main_window``, imported only then).

Exit status: 0 success; 1 the run finished but the check failed, or the kernel failed to
compile/launch; 2 bad input (unknown kernel, bad parameter, missing file, no GPU, too large).
Every failure prints one line on stderr starting ``error:``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["CliError", "build_parser", "main", "to_jsonable"]

VERBS = ("list", "run", "bench", "sweep", "trace")
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: error kinds that mean "the input was wrong" (exit 2) rather than "the kernel failed" (exit 1)
_USAGE_KINDS = {"validation", "user_file"}


class CliError(Exception):
    """Bad command-line input: printed as one ``error:`` line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # one clear line instead of argparse's usage block
        raise CliError(f"{message} (see {self.prog} --help)")


# ---------------------------------------------------------------------------------------------
# parsing


def _add_config_args(p: argparse.ArgumentParser, sweep: bool) -> None:
    many = " (comma-separated values to sweep)" if sweep else ""
    p.add_argument("kernel", help="kernel name (see `tilescope list`)")
    p.add_argument("--param", "-p", action="append", default=[], metavar="NAME=VALUE",
                   help=f"any parameter, e.g. BLOCK_SIZE=1024{many}")
    p.add_argument("--shape", "-s", action="append", default=[], metavar="NAME=VALUE",
                   help=f"a problem size, e.g. N=98432{many}")
    p.add_argument("--num-warps", metavar="N", help=f"warps per program{many}")
    p.add_argument("--num-stages", metavar="N", help=f"pipelining stages{many}")
    p.add_argument("--dtype", metavar="DTYPE", help=f"fp32, fp16 or bf16{many}")
    p.add_argument("--backend", "-b", default="auto", choices=("auto", "gpu", "interpreter"))
    p.add_argument("--seed", type=int, default=0, help="input random seed")
    p.add_argument("--file", "-f", metavar="PATH", help="a kernel file that registers the kernel")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--no-torch", action="store_true", help="do not time the torch equivalent")
    p.add_argument("--verbose", "-v", action="store_true", help="print error details")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="run in a worker process and stop it after SECONDS (a sweep: without a new "
                        "point); a kernel that never ends cannot hang the command")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tilescope", description="Explore Triton kernels: run, check, time, sweep.")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)

    p = sub.add_parser("list", help="list the kernels")
    p.add_argument("--file", "-f", metavar="PATH", help="also load this kernel file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("run", help="run one configuration: correctness, timing, compile facts")
    _add_config_args(p, sweep=False)
    p.add_argument("--no-bench", action="store_true", help="check only, no timing")
    p.add_argument("--asm", action="store_true", help="include IR texts (ttir…sass) in --json")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", help="benchmark kernels against torch (their bench cases)")
    p.add_argument("kernels", nargs="*", help="kernel names (or --all)")
    p.add_argument("--all", action="store_true", help="every kernel")
    p.add_argument("--backend", "-b", default="auto", choices=("auto", "gpu", "interpreter"))
    p.add_argument("--no-autotune", action="store_true", help="do not try the autotune configs")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("sweep", help="run every combination of one or two parameters")
    _add_config_args(p, sweep=True)
    p.set_defaults(func=cmd_sweep)

    _add_trace(sub)
    return parser


def _add_trace(sub: Any) -> None:
    """The ``trace`` verb lives in app/cli_trace.py (another module); add it when present."""
    import importlib

    try:
        mod = importlib.import_module("app.cli_trace")
    except ModuleNotFoundError as e:
        if e.name != "app.cli_trace":
            _unavailable_trace(sub, f"app.cli_trace needs {e.name!r}, which is not installed")
        return
    except Exception as e:  # noqa: BLE001 - a broken trace module must not break the other verbs
        _unavailable_trace(sub, f"app.cli_trace failed to import: {type(e).__name__}: {e}")
        return
    mod.add_parser(sub)


def _unavailable_trace(sub: Any, why: str) -> None:
    p = sub.add_parser("trace", help="(unavailable)")
    p.add_argument("rest", nargs=argparse.REMAINDER)

    def fail(args: argparse.Namespace) -> int:
        raise CliError(f"the trace verb is unavailable: {why}")

    p.set_defaults(func=fail)


def _pair(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise CliError(f"{option} expects NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def _collect(args: argparse.Namespace, spec: Any) -> dict[str, str]:
    """Parameter name -> the text given (the spec parses and validates it)."""
    given: dict[str, str] = {}
    for text in args.param:
        k, v = _pair(text, "--param")
        given[k] = v
    for text in args.shape:
        k, v = _pair(text, "--shape")
        kinds = {p.name: p.kind for p in spec.params}
        if kinds.get(k) != "shape":
            shapes = ", ".join(p.name for p in spec.params if p.kind == "shape") or "none"
            raise CliError(f"{k!r} is not a shape of {spec.name} (shapes: {shapes})")
        given[k] = v
    for opt, name in (("num_warps", "num_warps"), ("num_stages", "num_stages"), ("dtype", "dtype")):
        v = getattr(args, opt)
        if v is not None:
            given[name] = v
    return given


def _spec(args: argparse.Namespace) -> Any:
    from kernels import engine
    from kernels.errors import TilescopeError
    from kernels.params import ValidationError

    try:
        return engine.get_spec(args.kernel, getattr(args, "file", None))
    except (ValidationError, TilescopeError) as e:
        raise CliError(e.message) from None


# ---------------------------------------------------------------------------------------------
# output helpers


def to_jsonable(obj: Any) -> Any:
    """Dataclasses, dicts, lists -> JSON types. numpy arrays are left out; non-finite floats
    become the strings "inf", "-inf", "nan" (strict JSON has no such numbers)."""
    import numpy as np

    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)
                if not isinstance(getattr(obj, f.name), np.ndarray)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items() if not isinstance(v, np.ndarray)}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj if not isinstance(v, np.ndarray)]
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


def _print_json(obj: Any) -> None:
    print(json.dumps(to_jsonable(obj), indent=2, allow_nan=False))


def _fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms:.4f}" if ms < 1 else f"{ms:.3f}" if ms < 100 else f"{ms:.1f}"


def _fmt(v: float | None, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.{digits}g}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return "\n".join(lines)


def _error_exit(err: Any, verbose: bool = False) -> int:
    print(f"error: {err.message}", file=sys.stderr)
    if verbose and getattr(err, "detail", ""):
        print(err.detail, file=sys.stderr)
    return EXIT_USAGE if _is_usage(err) else EXIT_FAILED


def _is_usage(err: Any) -> bool:
    """Input the user can fix (a kind of bad input, or an error that marks a parameter)."""
    return err.kind in _USAGE_KINDS or getattr(err, "field", None) is not None


def _values_text(values: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in values.items())


# ---------------------------------------------------------------------------------------------
# verbs


def cmd_list(args: argparse.Namespace) -> int:
    from kernels import engine, userfile
    from kernels.errors import TilescopeError

    if args.file:
        try:
            userfile.ensure_loaded(args.file)
        except TilescopeError as e:
            raise CliError(e.message) from None
    infos = engine.infos()
    if args.json:
        _print_json([dataclasses.replace(i, source="") for i in infos])
        return EXIT_OK
    rows = []
    for i in infos:
        dtypes = next((",".join(p.choices or ()) for p in i.params if p.kind == "dtype"), "-")
        shapes = " ".join(f"{p.name}={p.default}" for p in i.params if p.kind == "shape")
        rows.append([i.name, i.title, i.metric, dtypes, shapes,
                     "catalog" if i.origin == "catalog" else i.origin])
    print(_table(["kernel", "title", "metric", "dtypes", "default shape", "origin"], rows))
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from kernels import engine
    from kernels.results import RunRequest

    spec = _spec(args)
    values = _collect(args, spec)
    for k, v in values.items():
        if "," in v:
            raise CliError(f"{k}={v}: run takes one value per parameter; use `tilescope sweep` for several")
    req = RunRequest(kernel=spec.name, values=values, backend=args.backend, seed=args.seed,
                     bench=not args.no_bench, torch_baseline=not args.no_torch,
                     keep_asm=bool(args.asm and args.json), keep_error_map=False, user_file=args.file)
    res = _in_worker("run", req, args.timeout) if args.timeout is not None else engine.run(req)
    if args.json:
        _print_json(res)
        if res.error is not None:
            return _error_exit(res.error, args.verbose)
        return EXIT_OK if res.ok else EXIT_FAILED
    if res.error is not None:
        return _error_exit(res.error, args.verbose)
    print(format_run(res))
    return EXIT_OK if res.ok else EXIT_FAILED


class _Failed(Exception):
    """A request that failed as a whole in the worker (timeout, crash): one error line, exit 1."""

    def __init__(self, info: Any) -> None:
        super().__init__(info.message)
        self.info = info


def _in_worker(kind: str, req: Any, timeout_s: float) -> Any:
    """Run ``req`` in a worker child process that is killed after ``timeout_s`` (the in-process
    engine cannot stop a kernel that never ends: a GPU hang never returns to Python)."""
    from app.client import WorkerClient, WorkerError

    if not timeout_s > 0:
        raise CliError(f"--timeout must be a positive number of seconds, got {timeout_s:g}")
    with WorkerClient(default_timeout_s=timeout_s) as client:
        if not client.wait_ready(300):
            tail = " | ".join(client.stderr_tail(3))
            raise CliError(f"the worker process did not start{': ' + tail if tail else ''}")
        if req.user_file:
            try:
                client.call("load_file", req.user_file, timeout=max(timeout_s, 60.0))
            except WorkerError as e:
                raise CliError(e.info.message) from None
        try:
            return client.call(kind, req)
        except WorkerError as e:
            raise _Failed(e.info) from None


def format_run(res: Any) -> str:
    """The run table: what ran, correctness, timing, metrics, compile facts, notes."""
    out: list[tuple[str, str]] = []
    out.append(("kernel", f"{res.kernel} on {res.device} [{res.backend}]"))
    out.append(("values", _values_text(res.values)))
    n_prog = math.prod(res.grid) if res.grid else 0
    out.append(("grid", f"{res.grid} = {n_prog} programs" if res.grid else "-"))
    c = res.check
    if c is not None:
        verdict = "PASS" if c.passed else "FAIL"
        out.append(("correctness",
                    f"{verdict}  {c.output}: max abs err {_fmt(c.max_abs_err)}, rel err {_fmt(c.rel_err)} "
                    f"(atol {c.atol:g}, rtol {c.rtol:g}); {c.n_mismatch} of {c.n_elements} mismatched, "
                    f"{c.n_unwritten} unwritten, {c.n_nan} NaN, {c.n_inf} inf"))
        for o in c.others:
            out.append(("", f"{'PASS' if o.passed else 'FAIL'}  {o.output}: max abs err {_fmt(o.max_abs_err)}, "
                            f"{o.n_mismatch} mismatched, {o.n_unwritten} unwritten"))
        if c.reason:
            out.append(("", c.reason))
    t, m = res.timing, res.metrics
    if t is not None:
        out.append(("timing", f"Triton {_fmt_ms(t.median_ms)} ms median (p20 {_fmt_ms(t.p20_ms)}, "
                              f"p80 {_fmt_ms(t.p80_ms)}, {t.n_reps} reps) — {t.method}"))
    if m is not None and m.torch_timing is not None:
        tt = m.torch_timing
        out.append(("", f"torch  {_fmt_ms(tt.median_ms)} ms median ({tt.n_reps} reps) — {tt.method}"))
    if m is not None and t is not None:
        parts = []
        if m.gbps is not None:
            pct = f" ({m.pct_peak_bw:.0f}% of measured copy peak {m.peak_gbps:.0f} GB/s)" \
                if m.pct_peak_bw is not None else ""
            parts.append(f"{_fmt(m.gbps, 4)} GB/s{pct}")
        if m.tflops is not None:
            pct = f" ({m.pct_peak_flops:.0f}% of measured bf16 matmul peak {m.peak_tflops:.0f})" \
                if m.pct_peak_flops is not None else ""
            parts.append(f"{_fmt(m.tflops, 4)} TFLOP/s{pct}")
        if m.ratio_vs_torch is not None:
            parts.append(f"torch/Triton time ratio {_fmt(m.ratio_vs_torch, 3)} (>1: Triton faster)")
        out.append(("metrics", "; ".join(parts) or "-"))
    cf = res.compile
    if cf is not None:
        occ = "-"
        if cf.programs_per_sm is not None:
            occ = (f"{cf.programs_per_sm} programs/SM (limited by {cf.occupancy_limiter}, "
                   f"{_fmt(cf.occupancy_warps_pct, 3)}% of warp slots), waves {_fmt(cf.waves, 3)} on {cf.n_sms} SMs")
        out.append(("compile", f"n_regs {cf.n_regs}, spills {cf.n_spills}, shared {cf.shared_bytes} B, "
                               f"num_warps {cf.num_warps}, num_stages {cf.num_stages}"))
        out.append(("occupancy", occ))
        if cf.asm:
            out.append(("asm", ", ".join(f"{k} ({len(v.splitlines())} lines)" for k, v in cf.asm.items())))
    for i, n in enumerate(res.notes):
        out.append(("notes" if i == 0 else "", f"- {n}"))
    w = max(len(k) for k, _ in out)
    return "\n".join(f"{k.ljust(w)}  {v}" for k, v in out)


def _sweep_axes(args: argparse.Namespace, spec: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
    values = _collect(args, spec)
    base: dict[str, Any] = {}
    axes: dict[str, list[str]] = {}
    for k, v in values.items():
        parts = [s.strip() for s in v.split(",")]
        if any(not s for s in parts):
            raise CliError(f"{k}={v}: an empty value in the list")
        if len(parts) > 1:
            axes[k] = parts
        else:
            base[k] = parts[0]
    if not axes:
        raise CliError("nothing to sweep: give one or two parameters several values, "
                       "e.g. --param BLOCK_SIZE=64,128,256")
    if len(axes) > 2:
        raise CliError(f"a sweep takes at most two parameters with several values, got {len(axes)}: "
                       f"{', '.join(axes)}")
    return base, axes


def cmd_sweep(args: argparse.Namespace) -> int:
    from kernels import engine
    from kernels.results import SweepRequest

    spec = _spec(args)
    base, axes = _sweep_axes(args, spec)
    req = SweepRequest(kernel=spec.name, base=base, axes=axes, backend=args.backend, seed=args.seed,
                       torch_baseline=not args.no_torch, user_file=args.file)
    progress = _stderr_progress() if sys.stderr.isatty() and not args.json else None
    res = (_in_worker("sweep", req, args.timeout) if args.timeout is not None
           else engine.sweep(req, progress=progress))
    if res.error is not None and not res.points:
        if args.json:
            _print_json(res)
        return _error_exit(res.error, args.verbose)
    # every point refused for the same bad input (e.g. a shape too large): say it once
    errs = {p.result.error.message: p.result.error for p in res.points if p.result.error}
    all_bad = res.points and all(p.result.error is not None for p in res.points)
    if args.json:
        _print_json(res)
    else:
        print(format_sweep(res, spec.metric))
    if all_bad and len(errs) == 1:
        return _error_exit(next(iter(errs.values())), args.verbose)
    if res.best is None:
        print("error: no point of the sweep passed its check (see the table)", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def format_sweep(res: Any, metric: str) -> str:
    names = list(res.request.axes)
    headers = [*names, "check", "Triton ms", "torch ms", metric, "ratio", "regs", "prog/SM", "", "note"]
    rows = []
    for i, p in enumerate(res.points):
        r = p.result
        m = r.metrics
        val = None
        if m is not None:
            val = m.tflops if metric == "TFLOP/s" else m.gbps
        check = "-" if r.check is None else ("pass" if r.check.passed else "FAIL")
        note = r.error.message if r.error else (r.check.reason if r.check and not r.check.passed else "")
        rows.append([*(str(p.values[n]) for n in names), "error" if r.error else check,
                     _fmt_ms(r.timing.median_ms if r.timing else None),
                     _fmt_ms(m.torch_timing.median_ms if m and m.torch_timing else None),
                     _fmt(val, 4), _fmt(m.ratio_vs_torch if m else None),
                     str(r.compile.n_regs) if r.compile and r.compile.n_regs is not None else "-",
                     str(r.compile.programs_per_sm) if r.compile and r.compile.programs_per_sm is not None else "-",
                     "* best" if i == res.best else "", note])
    text = [_table(headers, rows)]
    if res.points:
        r0 = res.points[0].result
        text.append(f"\n{r0.kernel} on {r0.device} [{r0.backend}], fixed: {_values_text(res.request.base) or '-'}")
        if r0.timing is not None:
            text.append(f"timing: {r0.timing.method}")
    if res.best is not None:
        b = res.points[res.best]
        text.append(f"best: {_values_text(b.values)} — {_fmt_ms(b.result.timing.median_ms)} ms")
    if res.error is not None:
        text.append(f"stopped: {res.error.message}")
    return "\n".join(text)


def _stderr_progress() -> Any:
    def progress(stage: str, fraction: float) -> None:
        print(f"\r[{fraction:4.0%}] {stage[:70]:<70}", end="", file=sys.stderr, flush=True)
        if fraction >= 1.0:
            print(file=sys.stderr)

    return progress


def cmd_bench(args: argparse.Namespace) -> int:
    from kernels import engine

    if not args.all and not args.kernels:
        raise CliError("bench needs kernel names or --all")
    names = None if args.all else list(args.kernels)
    for name in names or ():
        _spec(argparse.Namespace(kernel=name, file=None))  # unknown kernel: one error line
    progress = _stderr_progress() if sys.stderr.isatty() else None
    rows = engine.bench_all(args.backend, progress=progress, names=names, autotune=not args.no_autotune)
    if len(rows) == 1 and rows[0].get("kernel") == "*":  # the backend itself is unavailable
        print(f"error: {rows[0]['error']}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        _print_json(rows)
    else:
        print(format_bench(rows))
    failed = [r for r in rows if r.get("error") or r.get("passed") is False]
    return EXIT_FAILED if failed else EXIT_OK


def format_bench(rows: list[dict[str, Any]]) -> str:
    headers = ["kernel", "case", "check", "Triton ms", "torch ms", "ratio", "rate", "% peak", "best config"]
    out = []
    for r in rows:
        rate = "-"
        if r.get("metric") == "TFLOP/s" and r.get("tflops") is not None:
            rate = f"{r['tflops']:.4g} TFLOP/s"
        elif r.get("gbps") is not None:
            rate = f"{r['gbps']:.4g} GB/s"
        at = r.get("autotune")
        best = "-"
        if at:
            best = "case" if at.get("best_is_case") else (_values_text(at["best"]) if at.get("best") else "none passed")
        check = "error" if r.get("error") else ("pass" if r.get("passed") else "FAIL")
        out.append([r["kernel"], _values_text(r.get("case") or {}) or "defaults", check,
                    _fmt_ms(r.get("triton_ms")), _fmt_ms(r.get("torch_ms")), _fmt(r.get("ratio")),
                    rate, _fmt(r.get("pct_peak"), 3), best])
    text = [_table(headers, out)]
    if rows:
        text.append(f"\nbackend: {rows[0].get('backend')} on {rows[0].get('device')}; "
                    f"timing: {rows[0].get('timing_method') or '-'}; ratio = torch ms / Triton ms")
    for r in rows:
        msgs = ([r["error"]] if r.get("error") else []) + list(r.get("notes") or [])
        if r.get("check_reason") and not r.get("passed"):
            msgs.append(r["check_reason"])
        for msg in dict.fromkeys(msgs):
            text.append(f"  {r['kernel']}: {msg}")
    return "\n".join(text)


# ---------------------------------------------------------------------------------------------


def _open_gui(argv: list[str]) -> int:
    import importlib

    try:
        main_window = importlib.import_module("app.main_window")  # Qt is imported only here
    except ModuleNotFoundError as e:
        if e.name == "app.main_window":
            print("error: the GUI is not available in this install (app.main_window is missing); "
                  "the headless verbs work: tilescope list|run|bench|sweep", file=sys.stderr)
        else:
            print(f"error: the GUI needs {e.name!r}, which is not installed (pip install "
                  "PySide6-Essentials pyqtgraph); the headless verbs work without it: "
                  "tilescope list|run|bench|sweep", file=sys.stderr)
        return EXIT_USAGE
    return int(main_window.main(argv) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tilescope`` and ``python -m app``; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help")):
        return _open_gui(args_list)
    try:
        parser = build_parser()
        args = parser.parse_args(args_list)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        return int(args.func(args) or 0)
    except CliError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except _Failed as e:  # a timeout or a worker crash: the kernel's fault, not the input's
        return _error_exit(e.info)
    except SystemExit as e:  # --help
        return int(e.code or 0) if isinstance(e.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
