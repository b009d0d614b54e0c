"""Any plain Triton script, opened as it is: its launches captured and turned into specs.

``open_script(path, backend)`` runs the script in this process (the worker) with every launch
observed (``capture``), describes each launch (``CapturedLaunch``: kernel, call site, grid and
the rule inferred for it, arguments, what it wrote, autotune configs) and registers one
``KernelSpec`` per launch (``specs``), named ``<script>.<kernel>`` (``#2``, ``#3`` for later
launches of the same kernel). ``SCRIPTS`` keeps the last capture of each file for ``tilescope
open`` and the window's launch picker; ``reproducer`` writes a launch as a standalone script.
"""

from __future__ import annotations

import os
from collections import Counter

from ..data.backends import AUTO
from ..data.errors import UserFileError
from ..data.script import CapturedLaunch, ScriptCapture
from ..run.backends import Backend, resolve
from ..specs.spec import REGISTRY, KernelSpec
from .capture import LiveLaunch, capture
from .grid_rule import infer_grid_rule
from .specs import _ints, describe_args, spec_from_launch

__all__ = ["open_script", "is_plain_script", "SCRIPTS", "live_launch"]

#: path -> (its last capture, the live launches behind it)
SCRIPTS: dict[str, tuple[ScriptCapture, list[LiveLaunch]]] = {}


def is_plain_script(source: str) -> bool:
    """A file that registers no ``KernelSpec`` is a plain script (the tutorials' kind)."""
    return "KernelSpec" not in source


def live_launch(path: str, index: int) -> LiveLaunch:
    return SCRIPTS[os.path.realpath(path)][1][index]


def _record(live: LiveLaunch, spec_name: str) -> CapturedLaunch:
    file, line, text = live.call_site
    ints = _ints(live.bound)
    consts = {k: v for k, v in ints.items() if k in live.constexpr_names}
    sizes = {k: v for k, v in ints.items() if k not in live.constexpr_names}
    shown = tuple(live.grid if isinstance(live.grid, (tuple, list)) else (live.grid,)) \
        if not callable(live.grid) else tuple(g for g in live.grid3 if g != 1) or (1,)
    rule = infer_grid_rule(shown, sizes, consts) or ()
    if callable(live.grid):
        note = "grid: the script's meta lambda, evaluated again at each launch" + \
            (f" (it computes {', '.join(rule)})" if rule else "")
    elif rule:
        note = f"grid: inferred rule {', '.join(rule)} (checked on the captured launch {shown})"
    else:
        note = f"grid: fixed at {shown} — no rule cdiv(X, C) or X over the launch's integers fits"
    resizable = live.wrapper is not None and any(hasattr(v, "shape") for v in live.wrapper_args.values())
    return CapturedLaunch(
        index=live.index, kernel=live.fn.fn.__name__, spec_name=spec_name,
        call_site=f"{os.path.basename(file)}:{line}", call_text=text, wrapper=live.wrapper_name,
        grid=tuple(int(g) for g in shown), grid_kind="callable" if callable(live.grid) else "tuple",
        grid_rule=tuple(rule), grid_note=note, args=describe_args(live),
        options={k: v for k, v in live.options.items() if isinstance(v, (int, float, str, bool))},
        written=list(live.written), autotune_configs=[str(c) for c in live.autotune_configs],
        autotune_choice=live.autotune_choice, heuristics=sorted(live.heuristics), resizable=resizable,
        resize_note=("sizes: the wrapper " + live.wrapper_name + "() is called again with new random inputs"
                     if resizable else "sizes: fixed — the launch is made at module level, with no wrapper "
                     "function to call again"))


def open_script(path: str, backend: Backend | str = AUTO, *, budget_s: float = 30.0,
                max_launches: int = 16) -> tuple[ScriptCapture, list[KernelSpec]]:
    """Capture ``path`` and register a spec per launch (replacing the file's earlier ones)."""
    be = resolve(backend) if isinstance(backend, str) else backend
    real = os.path.realpath(path)
    cap, live = capture(real, be, budget_s=budget_s, max_launches=max_launches)
    for s in [s for s in REGISTRY if s.origin == real]:
        REGISTRY.remove(s.name)
    stem = os.path.splitext(os.path.basename(real))[0]
    seen: Counter[str] = Counter()
    specs = []
    for lv in live:
        k = lv.fn.fn.__name__
        seen[k] += 1
        name = f"{stem}.{k}" + (f"#{seen[k]}" if seen[k] > 1 else "")
        if name in REGISTRY and REGISTRY.get(name).origin != real:
            raise UserFileError(f"{path}: a kernel named {name!r} is already loaded from elsewhere", field="user_file")
        rec = _record(lv, name)
        cap.launches.append(rec)
        spec = spec_from_launch(lv, name, real, rec)
        REGISTRY(spec)
        specs.append(spec)
    SCRIPTS[real] = (cap, live)
    return cap, specs
