"""How wide each global memory instruction of a compiled kernel is, read from its PTX.

Triton picks a vector width per access from the layout and what it can prove about the pointers
and the mask (alignment, contiguity): a load of 8 contiguous fp32 per thread may become two
``ld.global.v4.b32`` (128 bits each) or eight scalar ``ld.global.b32`` when the mask is not
aligned. That choice is only in the generated code, so it is read there: every ``ld.global``,
``st.global``, ``atom`` / ``red`` and ``cp.async`` with the source place (line, column) of the
``.loc`` before it. Triton emits loads and stores as inline assembly whose own ``.loc`` lines
count up inside the block; the place is the one in force where the block begins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MemoryInstruction", "memory_instructions", "vector_bits_at"]

_LOC = re.compile(r"^\.loc\s+\d+\s+(\d+)\s+(\d+)(?:.*inlined_at\s+\d+\s+(\d+)\s+(\d+))?")
_INSTR = re.compile(r"^(?:@!?%\w+\s+)?((?:ld|st|atom|red)\.global\S*|cp\.async\.c[ag]\.shared\.global\S*)\s+(.*)$")


@dataclass(frozen=True)
class MemoryInstruction:
    """``kind``: "load", "store", "atomic" or "async_copy"; ``bits`` per thread."""

    kind: str
    bits: int
    line: int
    column: int


def _bits(opcode: str, operands: str) -> int:
    if opcode.startswith("cp.async"):
        size = operands.split(",")[2].strip()
        return int(size, 0) * 8
    vec = re.search(r"\.v(\d)\.", opcode)
    width = re.search(r"\.[bfsu](\d+)$", opcode)
    return (int(vec.group(1)) if vec else 1) * (int(width.group(1)) if width else 32)


def memory_instructions(ptx: str) -> list[MemoryInstruction]:
    """Every global memory instruction of ``ptx`` in order, with its width and source place."""
    out: list[MemoryInstruction] = []
    place = (-1, -1)
    in_asm = False
    for raw in ptx.splitlines():
        line = raw.strip()
        if line.startswith("// begin inline asm"):
            in_asm = True
            continue
        if line.startswith("// end inline asm"):
            in_asm = False
            continue
        m = _LOC.match(line)
        if m:
            if not in_asm:
                place = (int(m.group(3)), int(m.group(4))) if m.group(3) else (int(m.group(1)), int(m.group(2)))
            continue
        m = _INSTR.match(line)
        if not m:
            continue
        opcode = m.group(1)
        kind = ("async_copy" if opcode.startswith("cp.async") else "load" if opcode.startswith("ld")
                else "store" if opcode.startswith("st") else "atomic")
        out.append(MemoryInstruction(kind, _bits(opcode, m.group(2)), *place))
    return out


def vector_bits_at(instructions: list[MemoryInstruction], kind: str, line: int, column: int) -> int:
    """The widest ``kind`` instruction at (line, column) (0: none there). An access whose
    instructions differ in width (a vector and a scalar tail) reports its widest."""
    bits = [i.bits for i in instructions if i.kind == kind and i.line == line and i.column == column]
    return max(bits) if bits else 0
