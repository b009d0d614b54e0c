"""The advisor's sentences, as templates the window translates.

Each finding's title, detail and proposal text is built from the templates here (``Words``): the
English text is the fragments formatted and joined, and ``Finding.words`` keeps the fragments —
(template, {name: value as text}) — so that the window can show each template translated
(``views.engine_words.advice_text``; the window also translates each value that is one of the
``ARGUMENT_WORDS``). ``views/engine_words.py`` marks the same strings for Qt's translation tools
(they scan only ``views/`` and ``app/``); ``tests/views/test_advice_words.py`` fails when the
two lists differ or a string has no Chinese.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ARGUMENT_WORDS", "TEMPLATES", "Words"]

# spills
SPILLS_TITLE = "{bytes} bytes per thread spilled to local memory"
SPILLS_DETAIL = ("ptxas ran out of registers ({registers} per thread) and keeps values in local memory: "
                 "{n} spill loads and stores")
SPILLS_DETAIL_LINE = ", {n} of them for line {line}"
SPILLS_MORE_WARPS = "spread the values over more threads (num_warps {old} -> {new})"
SPILLS_SMALLER = "hold fewer values per thread: {changes}"
# occupancy
OCC_NONE = "{limiter} allow no program on an SM"
OCC_ONE = "{limiter} hold the SM to 1 program ({pct}% of its warps)"
OCC_SOME = "{limiter} hold the SM to {n} programs ({pct}% of its warps)"
OCC_DETAIL = "occupancy is limited by {limiter}: "
OCC_LIFT_SHARED = "{bytes} bytes of shared memory per program or less would fit {n}"
OCC_LIFT_REGS = "{registers} registers per thread or fewer would fit {n}"
OCC_LIFT_NONE = "no register count would"
OCC_STAGES = "one pipeline stage fewer (num_stages {old} -> {new}) frees a stage of shared memory per program"
OCC_WARPS = "more threads share the values (num_warps {old} -> {new}): fewer registers each"
OCC_BLOCK = "a smaller block ({param} {old} -> {new}) needs fewer registers"
# warps
WARPS_ONE = "1 warp for a {block} block: {n} elements per thread"
WARPS_SOME = "{warps} warps for a {block} block: {n} elements per thread"
WARPS_DETAIL = ("each thread walks {n} elements of line {line} one after another, and the SM holds {pct}% of its "
                "warps ({limiter} limit): few loads in flight")
WARPS_PROPOSAL = "more warps per program (num_warps {old} -> {new})"
# tail
TAIL_FORMULA = "{waves} waves: the last keeps {pct}% of the GPU busy"
TAIL_MEASURED = "the SMs were busy {busy}% of the launch; its tail took {share}% of the time"
TAIL_DETAIL = "{n} programs on {sms} SMs x {pps} per SM: "
TAIL_HOW_FORMULA = ("{waves} waves of which the last is {last}% full, so {idle}% of the slots idle (formula; a GPU "
                    "trace with its timeline measures it)")
TAIL_HOW_MEASURED = ("measured on the GPU: after the last program started ({share}% of the span) the SMs were "
                     "{busy}% busy; the formula gives {waves} waves")
TAIL_SMALLER = "more, smaller programs so the last wave is a smaller share of the time: {options}"
TAIL_SPLIT = "split each program's work (a smaller block, or a persistent loop over tiles)"
# L2 reuse
L2_TITLE = "{order} order: {gb} GB from DRAM, {fpb} FLOP per byte under the ridge of {ridge}"
L2_DETAIL = ("a wave of {per_wave} programs touches {rows} row panels of A and {cols} column panels of B ({mb} MB; "
             "L2 holds {l2} MB); GROUP_SIZE_M={group} would read {gb} GB in all ({fpb} FLOP per byte)")
L2_PROPOSAL = ("grouped program order (GROUP_SIZE_M {old} -> {new}): neighbouring programs share panels of A and B "
               "while they are in L2")
# uncoalesced
UNCO_TITLE = "line {line} {op} of {tensor}: {spr} sectors per request, ideal {ideal}"
UNCO_DETAIL = ("{pct}% of the sectors moved carry bytes a lane asked for ({bytes} bytes wasted over {n} programs); "
               "it moves {share}% of the kernel's sectors")
UNCO_STRIDE = "; neighbouring lanes are {stride} bytes apart"
UNCO_CONTIGUOUS = ("; the block itself is contiguous ({pct}% of its sectors used): each {bits}-bit instruction is "
                   "narrow, and the warp's next ones re-read the sectors from L1")
UNCO_PROPOSAL = ("at line {line}: let consecutive lanes walk the contiguous dimension (the innermost tl.arange on "
                 "the stride-1 index), or read a transposed copy")
UNCO_ALIGN = ("at line {line}: the lanes already walk the contiguous dimension ({vec} bytes each), but Triton cannot "
              "prove the rows 16-byte aligned, so each load is {bits}-bit: pad the rows (their stride) to a multiple of "
              "{k} elements (16 bytes), or pass a stride that is a multiple of 16 so Triton can prove the alignment "
              "(tl.multiple_of, or its divisibility specialization of integer arguments)")
VARIANT = ("; this kernel's own source does so with {flag}={value} (no such access there, compiled for {target}; "
           "the same reference)")
# vector width
VEC_TITLE = "line {line}: {n} elements for {threads} threads, {bits}-bit accesses"
VEC_DETAIL = "each thread moves {bits} bits per instruction (128 is the widest)"
VEC_DETAIL_DUP = " and {pct}% of the elements are held by several threads"
VEC_DETAIL_FLIGHT = "; {pps} programs per SM keep {bytes} bytes of this access in flight"
VEC_LARGER = "a larger block ({param} {old} -> {new}): 128-bit accesses, two per thread"
VEC_AT_LEAST = "at line {line}: a block of at least {n} elements"
# masked lanes
MASK_TITLE = "{pct}% of the lanes of loads and stores are masked off"
MASK_DETAIL = ("sampled {n} of {total} programs (the first and the last); line {line} masks {lanes} lanes there. "
               "Masked lanes issue nothing but hold their threads")
MASK_PROPOSAL = "a block closer to the size it covers (or a loop over it in smaller blocks)"
# roofline
ROOF_COMPUTE = "compute-bound at {pct}% of the measured matmul roof"
ROOF_MEMORY = "memory-bound at {pct}% of the measured copy roof"
ROOF_RIDGE = "{fpb} FLOP per byte against a ridge of {ridge}"
ROOF_NO_RIDGE = "the ridge is unknown"
ROOF_SOURCE = "; the roof: {source}"

#: every template above
TEMPLATES: tuple[str, ...] = tuple(v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str))

#: the values the templates' placeholders take that are words, not numbers or names
ARGUMENT_WORDS = ("registers", "shared memory", "warps", "blocks", "row-major", "load", "store", "a tensor")


class Words:
    """Fragments of a finding's texts: ``add(field, template, **values)`` appends one (values
    kept as text), ``text(field)`` is the English; ``parts`` goes into ``Finding.words``."""

    def __init__(self) -> None:
        self.parts: dict[str, list[tuple[str, dict[str, str]]]] = {}

    def add(self, field: str, template: str, **values: Any) -> Words:
        self.parts.setdefault(field, []).append((template, {k: str(v) for k, v in values.items()}))
        return self

    def text(self, field: str) -> str:
        return "".join(t.format(**v) for t, v in self.parts.get(field, []))
