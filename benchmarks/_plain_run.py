"""Run one Triton tutorial as plain Python, up to its first benchmark (the tutorial matrix's
"plain Python" column):

    python benchmarks/_plain_run.py FILE.py [ARGS ...]

The script runs as ``__main__`` with its own argv, exactly as ``python FILE.py`` would, except that
``triton.testing.do_bench``, ``do_bench_cudagraph`` and ``perf_report``'s ``run`` end it (exit 0,
"reached its benchmark"; Triton's autotuner still times its configs; a script that launched nothing
before its first ``do_bench`` — Gluon 01, 03, 04, 08 — has the function it measures called once
first, as Tilescope's capture does, so its kernels run): what comes before is the
tutorial's own code — its launches and its
own checks against torch. Nothing of Tilescope is imported. Exit status: 0 ran (to its end or to
its benchmark), 1 raised (the last line names the exception and the script's line). The last
line also counts the Triton launches the run made (``JITFunction.run`` and a compiled kernel's
``[grid](...)``; the autotuner's timing runs included): "0 Triton launches" is a tutorial that
launches nothing here (10 on a GPU below sm_100).
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from typing import Any


class _Benchmark(BaseException):
    pass


def main() -> int:
    path = os.path.realpath(sys.argv[1])
    sys.argv = [path, *sys.argv[2:]]
    sys.path.insert(0, os.path.dirname(path))
    import triton.testing as tt

    called_once: list[int] = []

    def reached_as(real: object) -> object:
        def reached(*a: object, **k: object) -> object:
            caller = sys._getframe(1).f_globals.get("__name__", "")
            if real is not None and (caller.startswith("triton.runtime") or called_once):  # the autotuner
                return real(*a, **k)  # timing its configs, or a benchmark inside the one call below
            if real is not None and not launches[0] and a and callable(a[0]):  # launches only inside it
                called_once.append(1)  # one call of the function it measures, as Tilescope's capture does
                a[0]()
            raise _Benchmark()
        return reached

    for name in ("do_bench", "do_bench_cudagraph"):
        if hasattr(tt, name):
            setattr(tt, name, reached_as(getattr(tt, name)))
    if hasattr(tt, "Mark"):
        tt.Mark.run = reached_as(None)
    launches = _count_launches()
    try:
        runpy.run_path(path, run_name="__main__")
    except _Benchmark:
        once = " after one call of the function it measures (nothing launched before it)" if called_once else ""
        print(f"plain run: reached its benchmark (stopped there{once}); {launches[0]} Triton launches")
        return 0
    except SystemExit as e:
        if e.code not in (None, 0):
            print(f"plain run: exited with status {e.code}; {launches[0]} Triton launches")
            return 1
    except BaseException as e:  # noqa: BLE001 - what the tutorial raised, with its line
        line = next((fs.lineno for fs in reversed(traceback.extract_tb(e.__traceback__))
                     if os.path.realpath(fs.filename) == path), 0)
        traceback.print_exc()
        print(f"plain run: {os.path.basename(path)}:{line}: {type(e).__name__}: "
              f"{str(e).splitlines()[0][:200] if str(e) else ''}; {launches[0]} Triton launches")
        return 1
    print(f"plain run: ran to its end; {launches[0]} Triton launches")
    return 0


def _count_launches() -> list[int]:
    """A one-element list counting the kernel launches from now on (``[grid](...)`` of a jitted
    kernel, Gluon's included, and of a compiled kernel); nothing else changes."""
    from triton.compiler.compiler import CompiledKernel
    from triton.runtime.interpreter import InterpretedFunction  # TRITON_INTERPRET=1's kernels
    from triton.runtime.jit import JITFunction

    n = [0]

    def counting(real_run: Any) -> Any:
        def run(self: object, *a: object, **k: object) -> object:
            if not k.get("warmup"):
                n[0] += 1
            return real_run(self, *a, **k)
        return run

    real_item = CompiledKernel.__getitem__

    def item(self: object, grid: object) -> object:
        launch = real_item(self, grid)

        def counted(*a: object, **k: object) -> object:
            n[0] += 1
            return launch(*a, **k)
        return counted

    JITFunction.run, CompiledKernel.__getitem__ = counting(JITFunction.run), item
    InterpretedFunction.run = counting(InterpretedFunction.run)
    return n


if __name__ == "__main__":
    sys.exit(main())
