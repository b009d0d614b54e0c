"""Loop variables under the interpreter have the type Triton's GPU compiler gives them
(kernels/interp/loop_vars.py): ``range``/``tl.range`` bounds promoted as ``visit_For`` does, in
the kernel and in its jit helpers; ``tl.static_range`` untouched (a constexpr on the GPU).

If these fail: ``i * STRIDE`` past 2³¹ in a loop gives the interpreter's capture, trace and check a
value the GPU never computes (the GPU's int32 wraps), or a loop that is int64 on the GPU wraps here.
"""

from __future__ import annotations

import itertools

import pytest
import torch

triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402

from kernels.interp import Interpreter, _triton, loop_vars  # noqa: E402

STRIDE = 2**30 + 3  # rows 2 and 3 pass 2**31 - 1


@triton.jit
def _negative_past_int32(row, STRIDE: tl.constexpr):
    return row * STRIDE < 0


@triton.jit
def _flags_of_a_helper_loop(out_ptr, n, STRIDE: tl.constexpr):
    for row in range(n):
        tl.store(out_ptr + row, _negative_past_int32(row, STRIDE).to(tl.float32))


@triton.jit
def helper_loop_kernel(out_ptr, n, STRIDE: tl.constexpr):
    _flags_of_a_helper_loop(out_ptr, n, STRIDE)


@triton.jit
def loop_uses_kernel(out_ptr, n, BLOCK: tl.constexpr):
    # a loop variable as a nested bound, in a branch, counted down: what worked on Python ints still does
    total = tl.zeros([BLOCK], tl.int32)
    for i in range(n - 1, -1, -1):
        for j in range(i):
            total += j
        if i == 0:
            total += 100
    tl.store(out_ptr + tl.arange(0, BLOCK), total)


def _interpret(kernel, grid, *args):
    with Interpreter([]).activate([kernel]) as K:
        K(kernel)[grid](*args)


def test_a_loop_inside_a_jit_helper_wraps_as_on_the_gpu():
    out = torch.full((4,), -1.0)
    _interpret(helper_loop_kernel, (1,), out, 4, STRIDE)
    assert out.tolist() == [0.0, 0.0, 1.0, 1.0]  # was: [0, 0, 0, 0] (a Python int never wraps)


def test_loop_variables_still_serve_as_bounds_and_conditions():
    out = torch.zeros(8, dtype=torch.int32)
    _interpret(loop_uses_kernel, (1,), out, 5, 8)
    assert out.tolist() == [sum(sum(range(i)) for i in range(5)) + 100] * 8


def _gpu_rule(bounds: tuple, step=None):
    """The induction variable's type as Triton's code generator computes it (``visit_For``)."""
    from triton.runtime.interpreter import interpreter_semantic as sem

    lb, ub = (0, bounds[0]) if len(bounds) == 1 else bounds
    ty = sem.integer_promote_impl(sem.to_tensor(lb).dtype, sem.to_tensor(ub).dtype)
    return sem.integer_promote_impl(ty, sem.to_tensor(1 if step is None else step).dtype)


def _tensor(value: int, ty):
    return _triton._scalars(ty)(value)


def test_the_loop_type_is_the_gpu_compilers_for_every_kind_of_bound():
    ints = [0, 7, -3, 2**31 - 1, 2**31, 2**32 + 1, 2**40]
    tensors = [_tensor(5, t) for t in (tl.int8, tl.int16, tl.int32, tl.uint32, tl.int64, tl.uint64)]
    for lb, ub in itertools.product(ints[:3] + tensors, ints + tensors):
        for step in (None, 2, 2**33, _tensor(1, tl.int64)):
            want = _gpu_rule((lb, ub), step)
            got = loop_vars.loop_type((lb, ub), {} if step is None else {"step": step})
            assert got == want, (lb, ub, step, got, want)
    assert loop_vars.loop_type((_tensor(5, tl.int64),), {}) == tl.int64  # range(n64): 0 is int32, promoted
    assert loop_vars.loop_type((tl.constexpr(4),), {"num_stages": 2}) == tl.int32  # tl.range's options
    assert loop_vars.loop_type((2.5,), {}) is None  # not an integer: left as the interpreter has it


def test_static_range_is_left_alone():
    import ast

    tree = ast.parse("for i in tl.static_range(4):\n    pass\nfor j in tl.range(4):\n    pass\n")
    tree = loop_vars.TypedLoops().visit(tree)
    iters = [ast.unparse(n.iter) for n in ast.walk(tree) if isinstance(n, ast.For)]
    assert iters == ["tl.static_range(4)", f"{loop_vars.RANGE_NAME}(tl.range, 4)"]
