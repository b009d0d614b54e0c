"""The options that name a kernel and give it values (``--param``, ``--shape``, the launch
options, ``--dtype``), shared by ``run``, ``sweep`` and ``trace``, and how they become the values
the spec parses and validates."""

from __future__ import annotations

import argparse
from typing import Any

from kernels.data.backends import AUTO, CHOICES
from kernels.data.virtual_gpus import ENV_VAR, VIRTUAL_GPUS, normalize

from .common import CliError

__all__ = ["add_config_args", "add_value_args", "add_virtual_gpu_arg", "collect_values", "get_spec"]

#: the options that set a launch option (a parameter of kind "launch" of the same name)
_LAUNCH_OPTIONS = (("--num-warps", "warps per program"), ("--num-stages", "pipelining stages"))


def add_value_args(p: argparse.ArgumentParser, *, block: int = 1024, n: int = 98432, many: str = "",
                   launch_note: str = "") -> None:
    """The kernel name and the options that give it values (``--param``, ``--shape``, the launch
    options, ``--dtype``); ``many`` ends each help text (a sweep's "comma-separated values")."""
    p.add_argument("kernel", nargs="?", help="kernel name (see `tilescope list`); optional with --file")
    p.add_argument("--launch", type=int, default=1, metavar="N",
                   help="with --file and no kernel name: the N-th launch of the script (1-based, default 1)")
    p.add_argument("--param", "-p", action="append", default=[], metavar="NAME=VALUE",
                   help=f"any parameter, e.g. BLOCK_SIZE={block}{many}")
    p.add_argument("--shape", "-s", action="append", default=[], metavar="NAME=VALUE",
                   help=f"a problem size, e.g. N={n}{many}")
    for option, what in _LAUNCH_OPTIONS:
        p.add_argument(option, metavar="N", help=f"{what}{launch_note}{many}")
    p.add_argument("--dtype", metavar="DTYPE", help=f"fp32, fp16 or bf16{many}")


def _pair(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise CliError(f"{option} expects NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def collect_values(args: argparse.Namespace, spec: Any) -> dict[str, str]:
    """Parameter name -> the text given (the spec parses and validates it)."""
    given: dict[str, str] = {}
    for text in args.param:
        k, v = _pair(text, "--param")
        given[k] = v
    names = {kind: [p.name for p in spec.params if p.kind == kind] for kind in ("shape", "launch", "dtype")}
    for text in args.shape:
        k, v = _pair(text, "--shape")
        if k not in names["shape"]:
            raise CliError(f"{k!r} is not a shape of {spec.name} (shapes: {', '.join(names['shape']) or 'none'})")
        given[k] = v
    for option, _ in _LAUNCH_OPTIONS:
        name = option[2:].replace("-", "_")
        v = getattr(args, name)
        if v is None:
            continue
        if name not in names["launch"]:
            raise CliError(f"{option}: {spec.name} has no launch option {name!r} "
                           f"(launch options: {', '.join(names['launch']) or 'none'})")
        given[name] = v
    if args.dtype is not None:
        given[next(iter(names["dtype"]), "dtype")] = args.dtype
    return given


def get_spec(args: argparse.Namespace) -> Any:
    """The kernel ``args.kernel`` names or, with ``--file`` and no name, the file's
    ``--launch``-th kernel; CliError if none. Sets ``args.kernel``.

    A catalog kernel's ``KernelSpec`` comes from this process; with ``--file`` the file is loaded
    in the command's worker (``app.cli.remote``: never imported here) and its ``KernelInfo``
    comes back — ``name``, ``params`` and ``metric``, which is what the verbs read."""
    from kernels.data.errors import TilescopeError
    from kernels.data.params import ValidationError

    from .remote import kernel_info

    file = getattr(args, "file", None)
    if args.kernel is None and not file:
        raise CliError("give a kernel name, or --file FILE (with --launch N for its N-th launch)")
    if file:  # (this process then never imports torch or triton: the worker does)
        spec = kernel_info(args, file, args.kernel, getattr(args, "launch", 1))
    else:
        from kernels import engine

        try:
            spec = engine.get_spec(args.kernel)
        except (ValidationError, TilescopeError) as e:
            raise CliError(e.message) from None
    args.kernel = spec.name
    return spec


def add_config_args(p: argparse.ArgumentParser, sweep: bool) -> None:
    """The options ``run`` and ``sweep`` share (a sweep takes comma-separated values)."""
    add_value_args(p, many=" (comma-separated values to sweep)" if sweep else "")
    p.add_argument("--backend", "-b", default=AUTO, choices=CHOICES)
    p.add_argument("--seed", type=int, default=0, help="input random seed")
    p.add_argument("--file", "-f", metavar="PATH", help="a kernel file that registers the kernel")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--no-torch", action="store_true", help="do not time the torch equivalent")
    p.add_argument("--verbose", "-v", action="store_true", help="print error details")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="run in a worker process and stop it after SECONDS (a sweep: without a new "
                        "point); a kernel that never ends cannot hang the command")


def _virtual_gpu(text: str) -> str:
    try:
        return normalize(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_virtual_gpu_arg(p: argparse.ArgumentParser) -> None:
    """``--virtual-gpu ARCH``: the GPU a script's device checks are answered as without one (the
    worker that runs the script is started with ``$TILESCOPE_VIRTUAL_GPU`` set to it)."""
    p.add_argument("--virtual-gpu", type=_virtual_gpu, metavar="ARCH",
                   help=f"without a GPU, answer the script's device checks as this GPU: "
                        f"{', '.join(g.label.replace('%', '%%') for g in VIRTUAL_GPUS.values())} "
                        f"(default sm_90, or ${ENV_VAR}); no effect on a GPU")
