"""Loop counters for the tracer: an AST pass that makes a kernel report its loop iterations.

Each ``for``/``while`` of the kernel function becomes::

    __tilescope_loops__.enter(j)
    try:
        for ...:
            __tilescope_loops__.tick(j)
            <body>
    finally:
        __tilescope_loops__.leave(j)

so that at every load/store ``LoopState.cur[j]`` holds the 0-based iteration of loop ``j`` (or -1
outside it). ``try/finally`` keeps the counters right through ``break``/``continue``/``return``.
New nodes take the loop's own source location (``ast.copy_location``), so line numbers of the
kernel are unchanged. Pure ``ast``: nothing here touches Triton.
"""

from __future__ import annotations

import ast

__all__ = ["LOOPS_NAME", "LoopInstrumenter", "LoopState"]

LOOPS_NAME = "__tilescope_loops__"


class LoopState:
    """The current iteration of every loop of one kernel; reset at the start of each program."""

    __slots__ = ("cur", "n")

    def __init__(self, n: int) -> None:
        self.n = n
        self.cur = [-1] * n

    def enter(self, j: int) -> None:
        self.cur[j] = -1

    def tick(self, j: int) -> None:
        self.cur[j] += 1

    def leave(self, j: int) -> None:
        self.cur[j] = -1

    def reset(self) -> None:
        self.cur = [-1] * self.n

    def snapshot(self) -> tuple[int, ...]:
        return tuple(self.cur)


def _call(method: str, j: int, where: ast.AST) -> ast.stmt:
    node = ast.Expr(ast.Call(
        func=ast.Attribute(value=ast.Name(id=LOOPS_NAME, ctx=ast.Load()), attr=method, ctx=ast.Load()),
        args=[ast.Constant(value=j)], keywords=[]))
    return ast.copy_location(node, where)


class LoopInstrumenter(ast.NodeTransformer):
    """Numbers the loops of the (first) function in source order and inserts the counters.

    After the pass, ``loops[j]`` is loop j's node (its ``lineno`` follows later line shifts) and
    ``parents[j]`` the loop it is nested in (-1 at the top level)."""

    def __init__(self) -> None:
        self.loops: list[ast.stmt] = []
        self.parents: list[int] = []
        self._stack: list[int] = []

    def _loop(self, node: ast.For | ast.While) -> list[ast.stmt]:
        j = len(self.loops)
        self.loops.append(node)
        self.parents.append(self._stack[-1] if self._stack else -1)
        self._stack.append(j)
        self.generic_visit(node)  # nested loops get the next numbers
        self._stack.pop()
        first = node.body[0] if node.body else node
        node.body = [_call("tick", j, first)] + node.body
        guard = ast.copy_location(ast.Try(body=[node], handlers=[], orelse=[],
                                          finalbody=[_call("leave", j, node)]), node)
        return [_call("enter", j, node), guard]

    visit_For = _loop
    visit_While = _loop

    def visit_AsyncFor(self, node: ast.AsyncFor) -> ast.AST:  # not Triton; leave alone
        return node

    @property
    def lines(self) -> list[int]:
        return [int(n.lineno) for n in self.loops]
