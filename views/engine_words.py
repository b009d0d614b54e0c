"""The engine's sentences, in the window's language — standard library only.

The engine (``kernels/``) speaks English and must not import Qt; some of its sentences reach the
window as they are (why there is no GPU, …). ``engine_text(message)`` matches a message against
the patterns below and returns the translation (context ``Engine``) with the parts the engine
filled in (a version, an error) kept as they were; a message no pattern knows comes back unchanged.
"""

from __future__ import annotations

import re

from .words import QT_TRANSLATE_NOOP, translate

__all__ = ["ADVISOR_ARGUMENT_WORDS", "ADVISOR_EVIDENCE_LABELS", "ADVISOR_TEMPLATES", "ENGINE_SENTENCES", "advice_text", "engine_text", "evidence_row"]

#: (pattern of the engine's words, the same words with the pattern's groups as {placeholders})
ENGINE_SENTENCES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"this torch \((?P<version>[^)]*)\) is a CPU-only build"),
     QT_TRANSLATE_NOOP("Engine", "this torch ({version}) is a CPU-only build")),
    (re.compile(r"torch sees no CUDA device \(driver missing or no GPU visible\)"),
     QT_TRANSLATE_NOOP("Engine", "torch sees no CUDA device (driver missing or no GPU visible)")),
    (re.compile(r"CUDA is installed but unusable: (?P<error>.*)"),
     QT_TRANSLATE_NOOP("Engine", "CUDA is installed but unusable: {error}")),
    (re.compile(r"torch is not importable \((?P<error>.*)\)"),
     QT_TRANSLATE_NOOP("Engine", "torch is not importable ({error})")),
    # the advisor's card: what the CPU cannot tell (kernels.advisor.service.GPU_ONLY), its trials' notes
    (re.compile(r"roofline position \(needs GPU timing against the measured roofs\)"),
     QT_TRANSLATE_NOOP("Engine", "roofline position (needs GPU timing against the measured roofs)")),
    (re.compile(r"measured tail \(needs the GPU timeline; the tail here is the formula's\)"),
     QT_TRANSLATE_NOOP("Engine", "measured tail (needs the GPU timeline; the tail here is the formula's)")),
    (re.compile(r"measured gain of each launch proposal \(needs GPU timing; here each is compiled and checked\)"),
     QT_TRANSLATE_NOOP("Engine", "measured gain of each launch proposal (needs GPU timing; here each is compiled and checked)")),
    (re.compile(r"compiled for (?P<target>\S+); not timed \(no GPU\): (?P<n>\d+) candidate\(s\) checked"),
     QT_TRANSLATE_NOOP("Engine", "compiled for {target}; not timed (no GPU): {n} candidate(s) checked")),
    (re.compile(r"tune sweep on (?P<backend>\S+): (?P<n>\d+) configs, the fastest re-measured interleaved"),
     QT_TRANSLATE_NOOP("Engine", "tune sweep on {backend}: {n} configs, the fastest re-measured interleaved")),
    # the rest of kernels/advisor/trial.py's notes (a compiler's or the sweep's own words stay as given)
    (re.compile(r"compiled for (?P<target>\S+); not timed \(no GPU\): (?P<n>\d+) candidate\(s\) checked; (?P<rest>.+)"),
     QT_TRANSLATE_NOOP("Engine", "compiled for {target}; not timed (no GPU): {n} candidate(s) checked; {rest}")),
    (re.compile(r"no candidate compiled: (?P<why>.*)"), QT_TRANSLATE_NOOP("Engine", "no candidate compiled: {why}")),
    (re.compile(r"the sweep failed: (?P<why>.*)"), QT_TRANSLATE_NOOP("Engine", "the sweep failed: {why}")),
    (re.compile(r"the current values were not timed"), QT_TRANSLATE_NOOP("Engine", "the current values were not timed")),
    (re.compile(r"no candidate passed its check"), QT_TRANSLATE_NOOP("Engine", "no candidate passed its check")),
)


def engine_text(message: str) -> str:
    """``message`` in the window's language when it is one of ``ENGINE_SENTENCES`` (whole), else
    as it is."""
    for pattern, words in ENGINE_SENTENCES:
        m = pattern.fullmatch(message or "")
        if m:
            return translate("Engine", words).format(**m.groupdict())
    return message


# ---------------------------------------------------------------------------------- the advisor
#: the advisor's sentence templates (``kernels.advisor.words.TEMPLATES``, the same strings: Qt's
#: tools scan only views/ and app/; tests/views/test_advice_words.py keeps the two lists equal)
ADVISOR_TEMPLATES: tuple[str, ...] = (
    QT_TRANSLATE_NOOP("Advisor", '{bytes} bytes per thread spilled to local memory'),
    QT_TRANSLATE_NOOP("Advisor", 'ptxas ran out of registers ({registers} per thread) and keeps values in local memory: {n} spill loads and stores'),
    QT_TRANSLATE_NOOP("Advisor", ', {n} of them for line {line}'),
    QT_TRANSLATE_NOOP("Advisor", 'spread the values over more threads (num_warps {old} -> {new})'),
    QT_TRANSLATE_NOOP("Advisor", 'hold fewer values per thread: {changes}'),
    QT_TRANSLATE_NOOP("Advisor", '{limiter} allow no program on an SM'),
    QT_TRANSLATE_NOOP("Advisor", '{limiter} hold the SM to 1 program ({pct}% of its warps)'),
    QT_TRANSLATE_NOOP("Advisor", '{limiter} hold the SM to {n} programs ({pct}% of its warps)'),
    QT_TRANSLATE_NOOP("Advisor", 'occupancy is limited by {limiter}: '),
    QT_TRANSLATE_NOOP("Advisor", '{bytes} bytes of shared memory per program or less would fit {n}'),
    QT_TRANSLATE_NOOP("Advisor", '{registers} registers per thread or fewer would fit {n}'),
    QT_TRANSLATE_NOOP("Advisor", 'no register count would'),
    QT_TRANSLATE_NOOP("Advisor", 'one pipeline stage fewer (num_stages {old} -> {new}) frees a stage of shared memory per program'),
    QT_TRANSLATE_NOOP("Advisor", 'more threads share the values (num_warps {old} -> {new}): fewer registers each'),
    QT_TRANSLATE_NOOP("Advisor", 'a smaller block ({param} {old} -> {new}) needs fewer registers'),
    QT_TRANSLATE_NOOP("Advisor", '1 warp for a {block} block: {n} elements per thread'),
    QT_TRANSLATE_NOOP("Advisor", '{warps} warps for a {block} block: {n} elements per thread'),
    QT_TRANSLATE_NOOP("Advisor", 'each thread walks {n} elements of line {line} one after another, and the SM holds {pct}% of its warps ({limiter} limit): few loads in flight'),
    QT_TRANSLATE_NOOP("Advisor", 'more warps per program (num_warps {old} -> {new})'),
    QT_TRANSLATE_NOOP("Advisor", '{waves} waves: the last keeps {pct}% of the GPU busy'),
    QT_TRANSLATE_NOOP("Advisor", 'the SMs were busy {busy}% of the launch; its tail took {share}% of the time'),
    QT_TRANSLATE_NOOP("Advisor", '{n} programs on {sms} SMs x {pps} per SM: '),
    QT_TRANSLATE_NOOP("Advisor", '{waves} waves of which the last is {last}% full, so {idle}% of the slots idle (formula; a GPU trace with its timeline measures it)'),
    QT_TRANSLATE_NOOP("Advisor", 'measured on the GPU: after the last program started ({share}% of the span) the SMs were {busy}% busy; the formula gives {waves} waves'),
    QT_TRANSLATE_NOOP("Advisor", 'more, smaller programs so the last wave is a smaller share of the time: {options}'),
    QT_TRANSLATE_NOOP("Advisor", "split each program's work (a smaller block, or a persistent loop over tiles)"),
    QT_TRANSLATE_NOOP("Advisor", '{order} order: {gb} GB from DRAM, {fpb} FLOP per byte under the ridge of {ridge}'),
    QT_TRANSLATE_NOOP("Advisor", 'a wave of {per_wave} programs touches {rows} row panels of A and {cols} column panels of B ({mb} MB; L2 holds {l2} MB); GROUP_SIZE_M={group} would read {gb} GB in all ({fpb} FLOP per byte)'),
    QT_TRANSLATE_NOOP("Advisor", 'grouped program order (GROUP_SIZE_M {old} -> {new}): neighbouring programs share panels of A and B while they are in L2'),
    QT_TRANSLATE_NOOP("Advisor", 'line {line} {op} of {tensor}: {spr} sectors per request, ideal {ideal}'),
    QT_TRANSLATE_NOOP("Advisor", "{pct}% of the sectors moved carry bytes a lane asked for ({bytes} bytes wasted over {n} programs); it moves {share}% of the kernel's sectors"),
    QT_TRANSLATE_NOOP("Advisor", '; neighbouring lanes are {stride} bytes apart'),
    QT_TRANSLATE_NOOP("Advisor", "; the block itself is contiguous ({pct}% of its sectors used): each {bits}-bit instruction is narrow, and the warp's next ones re-read the sectors from L1"),
    QT_TRANSLATE_NOOP("Advisor", 'at line {line}: let consecutive lanes walk the contiguous dimension (the innermost tl.arange on the stride-1 index), or read a transposed copy'),
    QT_TRANSLATE_NOOP("Advisor", 'at line {line}: the lanes already walk the contiguous dimension ({vec} bytes each), but Triton cannot prove the rows 16-byte aligned, so each load is {bits}-bit: pad the rows (their stride) to a multiple of {k} elements (16 bytes), or pass a stride that is a multiple of 16 so Triton can prove the alignment (tl.multiple_of, or its divisibility specialization of integer arguments)'),
    QT_TRANSLATE_NOOP("Advisor", "; this kernel's own source does so with {flag}={value} (no such access there, compiled for {target}; the same reference)"),
    QT_TRANSLATE_NOOP("Advisor", 'line {line}: {n} elements for {threads} threads, {bits}-bit accesses'),
    QT_TRANSLATE_NOOP("Advisor", 'each thread moves {bits} bits per instruction (128 is the widest)'),
    QT_TRANSLATE_NOOP("Advisor", ' and {pct}% of the elements are held by several threads'),
    QT_TRANSLATE_NOOP("Advisor", '; {pps} programs per SM keep {bytes} bytes of this access in flight'),
    QT_TRANSLATE_NOOP("Advisor", 'a larger block ({param} {old} -> {new}): 128-bit accesses, two per thread'),
    QT_TRANSLATE_NOOP("Advisor", 'at line {line}: a block of at least {n} elements'),
    QT_TRANSLATE_NOOP("Advisor", '{pct}% of the lanes of loads and stores are masked off'),
    QT_TRANSLATE_NOOP("Advisor", 'sampled {n} of {total} programs (the first and the last); line {line} masks {lanes} lanes there. Masked lanes issue nothing but hold their threads'),
    QT_TRANSLATE_NOOP("Advisor", 'a block closer to the size it covers (or a loop over it in smaller blocks)'),
    QT_TRANSLATE_NOOP("Advisor", 'compute-bound at {pct}% of the measured matmul roof'),
    QT_TRANSLATE_NOOP("Advisor", 'memory-bound at {pct}% of the measured copy roof'),
    QT_TRANSLATE_NOOP("Advisor", '{fpb} FLOP per byte against a ridge of {ridge}'),
    QT_TRANSLATE_NOOP("Advisor", 'the ridge is unknown'),
    QT_TRANSLATE_NOOP("Advisor", '; the roof: {source}'),
)
#: the values of the templates' placeholders that are words (``kernels.advisor.words.ARGUMENT_WORDS``)
ADVISOR_ARGUMENT_WORDS: tuple[str, ...] = (
    QT_TRANSLATE_NOOP("Advisor", 'registers'),
    QT_TRANSLATE_NOOP("Advisor", 'shared memory'),
    QT_TRANSLATE_NOOP("Advisor", 'warps'),
    QT_TRANSLATE_NOOP("Advisor", 'blocks'),
    QT_TRANSLATE_NOOP("Advisor", 'row-major'),
    QT_TRANSLATE_NOOP("Advisor", 'load'),
    QT_TRANSLATE_NOOP("Advisor", 'store'),
    QT_TRANSLATE_NOOP("Advisor", 'a tensor'),
)

#: the advisor's evidence keys (``Finding.evidence``; ``kernels/advisor/rules.py``) as the window
#: names them, translated (context ``Advisor``); a key not here is shown as it is
ADVISOR_EVIDENCE_LABELS: dict[str, str] = {
    "a_panels": QT_TRANSLATE_NOOP("Advisor", "A row panels a wave loads"),
    "b_panels": QT_TRANSLATE_NOOP("Advisor", "B column panels a wave loads"),
    "block": QT_TRANSLATE_NOOP("Advisor", "block (elements)"),
    "block_efficiency": QT_TRANSLATE_NOOP("Advisor", "coalescing efficiency of the whole block"),
    "duplicated": QT_TRANSLATE_NOOP("Advisor", "threads per element"),
    "efficiency": QT_TRANSLATE_NOOP("Advisor", "efficiency"),
    "elements": QT_TRANSLATE_NOOP("Advisor", "elements in the block"),
    "elements_per_thread": QT_TRANSLATE_NOOP("Advisor", "elements per thread"),
    "flop_per_byte": QT_TRANSLATE_NOOP("Advisor", "FLOP per byte"),
    "gbps": QT_TRANSLATE_NOOP("Advisor", "GB/s"),
    "group": QT_TRANSLATE_NOOP("Advisor", "GROUP_SIZE_M now"),
    "grouped_gb": QT_TRANSLATE_NOOP("Advisor", "GB moved, grouped"),
    "ideal_per_request": QT_TRANSLATE_NOOP("Advisor", "ideal sectors per request"),
    "l2_mb": QT_TRANSLATE_NOOP("Advisor", "L2 size (MB)"),
    "lane_stride_bytes": QT_TRANSLATE_NOOP("Advisor", "stride between lanes (bytes)"),
    "last_wave_full": QT_TRANSLATE_NOOP("Advisor", "last wave's fill"),
    "launch_gb": QT_TRANSLATE_NOOP("Advisor", "GB moved, this launch"),
    "limiter": QT_TRANSLATE_NOOP("Advisor", "limited by"),
    "masked_fraction": QT_TRANSLATE_NOOP("Advisor", "masked lanes (fraction)"),
    "misaligned_vector_bytes": QT_TRANSLATE_NOOP("Advisor", "misaligned vector (bytes)"),
    "num_warps": QT_TRANSLATE_NOOP("Advisor", "num_warps"),
    "pct_of_roof": QT_TRANSLATE_NOOP("Advisor", "% of the roof"),
    "per_wave": QT_TRANSLATE_NOOP("Advisor", "programs per wave"),
    "programs": QT_TRANSLATE_NOOP("Advisor", "programs"),
    "programs_per_sm": QT_TRANSLATE_NOOP("Advisor", "programs per SM"),
    "programs_sampled": QT_TRANSLATE_NOOP("Advisor", "programs sampled"),
    "programs_traced": QT_TRANSLATE_NOOP("Advisor", "programs traced"),
    "registers": QT_TRANSLATE_NOOP("Advisor", "registers per thread"),
    "registers_for_one_more": QT_TRANSLATE_NOOP("Advisor", "registers per thread for one more program"),
    "ridge": QT_TRANSLATE_NOOP("Advisor", "ridge (FLOP per byte)"),
    "sectors_per_request": QT_TRANSLATE_NOOP("Advisor", "sectors per request"),
    "share_of_sectors": QT_TRANSLATE_NOOP("Advisor", "share of the kernel's sectors"),
    "shared_bytes": QT_TRANSLATE_NOOP("Advisor", "shared memory per program (bytes)"),
    "shared_for_one_more": QT_TRANSLATE_NOOP("Advisor", "shared memory per program for one more (bytes)"),
    "sm_busy": QT_TRANSLATE_NOOP("Advisor", "SMs busy (fraction)"),
    "sms": QT_TRANSLATE_NOOP("Advisor", "SMs"),
    "spill_bytes_per_thread": QT_TRANSLATE_NOOP("Advisor", "spilled bytes per thread"),
    "spill_instructions": QT_TRANSLATE_NOOP("Advisor", "spill instructions"),
    "spill_instructions_on_line": QT_TRANSLATE_NOOP("Advisor", "spill instructions on this line"),
    "tail_busy": QT_TRANSLATE_NOOP("Advisor", "SMs busy in the tail (fraction)"),
    "tail_share": QT_TRANSLATE_NOOP("Advisor", "tail's share of the time"),
    "tflops": QT_TRANSLATE_NOOP("Advisor", "TFLOP/s"),
    "threads": QT_TRANSLATE_NOOP("Advisor", "threads"),
    "vector_bits": QT_TRANSLATE_NOOP("Advisor", "vector width (bits)"),
    "warps_pct": QT_TRANSLATE_NOOP("Advisor", "warps resident (% of the SM's)"),
    "wave_mb": QT_TRANSLATE_NOOP("Advisor", "MB a wave loads"),
    "waves": QT_TRANSLATE_NOOP("Advisor", "waves"),
}


def advice_text(parts: list[tuple[str, dict[str, str]]] | None, english: str) -> str:
    """A finding's text (``Finding.words[field]``: its fragments, each a template and its values)
    in the window's language: each template translated (context ``Advisor``) and each value that
    is one of ``ADVISOR_ARGUMENT_WORDS`` too; ``english`` when there are no fragments (an older
    engine's finding)."""
    if not parts:
        return english
    words = set(ADVISOR_ARGUMENT_WORDS)
    return "".join(translate("Advisor", t).format(**{k: translate("Advisor", v) if v in words else v
                                                      for k, v in values.items()})
                   for t, values in parts)


def evidence_row(key: str, value: object) -> tuple[str, str]:
    """(label, value) of one evidence entry in the window's language: the key named (its label in
    ``ADVISOR_EVIDENCE_LABELS``, translated; else the key), a value that is one of
    ``ADVISOR_ARGUMENT_WORDS`` ("shared memory") translated, any other value as it is."""
    label = translate("Advisor", ADVISOR_EVIDENCE_LABELS[key]) if key in ADVISOR_EVIDENCE_LABELS else key
    text = str(value)
    return label, translate("Advisor", text) if text in ADVISOR_ARGUMENT_WORDS else text
