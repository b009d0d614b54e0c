"""The grid view's words: hover and pin texts, loop names, titles, the out-of-bounds list —
plain strings from a ``PreparedTrace``, no Qt (titles are Qt rich text, but only as strings).
"""

from __future__ import annotations

import numpy as np

from kernels.data.grid import program_xyz
from kernels.data.trace import OOB_OUTSIDE_VIEW, OP_NAMES, SEVERAL, OOBRecord, Trace

from .lighting import Target, element_lanes, program_events
from .prepare import LIT_LOAD, LIT_STORE, Panel, PreparedTrace, is_strip

__all__ = [
    "HINT", "element_text", "fmt_range", "grid_title", "info_text", "loop_label", "loop_name",
    "oob_header", "oob_line", "panel_title", "program_text", "window_text",
]

HINT = "Hover a program to light its elements, or an element to see who touched it; click to pin."


def fmt_range(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}..{hi}"


def _dim_names(p: Panel) -> list[str]:
    nd = len(p.info.shape)
    return ["rows", "cols"] if nd == 2 else [f"dim{d}" for d in range(nd)]


def loop_name(trace: Trace, j: int, short: bool = False) -> str:
    """``line N: <its source text>`` of loop ``j`` (``loop j`` when its line is unknown)."""
    if j >= len(trace.loop_lines) or trace.loop_lines[j] < 0:
        return f"loop {j}"
    ln = trace.loop_lines[j]
    src = trace.source.splitlines()
    i = ln - trace.source_first_line
    text = src[i].split("#")[0].strip() if 0 <= i < len(src) else ""
    width = 32 if short else 48
    return f"line {ln}" + (f": {text[:width]}{'…' if len(text) > width else ''}" if text else "")


def loop_label(trace: Trace | None, loop_steps: list[int], loop: int, step: int | None, n_steps: int) -> str:
    """The text beside the loop slider: the step shown, and which loop when there is one only."""
    if trace is None or not n_steps:
        return ""
    # the step first: when the bar is narrow the loop's source text is what gets cut
    where = "" if len(loop_steps) > 1 else "   —   loop at " + loop_name(trace, loop)
    shown = "all iterations" if step is None else f"step {step} of {n_steps}"
    return f"{shown}{where}"


def _program_tensor_line(prep: PreparedTrace, p: Panel, pid: int, step: int | None) -> str | None:
    js = program_events(p, pid, step)
    if not js.size:
        return None
    el, _ = p.lanes_of_events(js)
    ops = sorted({OP_NAMES[o] for o in prep.trace.events.op[p.ev[js]]})
    what = f"{'/'.join(ops)} ×{len(js)}"
    if not el.size:
        return f"  {p.info.name}: {what}, every lane masked"
    uniq = np.unique(el)
    if len(p.info.shape) >= 2:
        idx = np.unravel_index(uniq, p.info.shape)
        ranges = ", ".join(f"{nm} {fmt_range(int(i.min()), int(i.max()))}"
                           for nm, i in zip(_dim_names(p), idx, strict=True))
    else:
        ranges = f"elements {fmt_range(int(uniq.min()), int(uniq.max()))}"
    return f"  {p.info.name}: {what}  {ranges}  ({len(uniq)} elements)"


def program_text(prep: PreparedTrace, pid: int, step: int | None, loop: int) -> str:
    """What program ``pid`` did (in loop step ``step`` of loop ``loop``, unless None)."""
    tr = prep.trace
    x, y, z = program_xyz(pid, tr.grid)
    head = f"program {pid}   pid (x={x}, y={y}, z={z})"
    pos = int(prep.pos[pid])
    if pos < 0:
        return f"{head}\nnot recorded: the tracer ran {tr.window}."
    head += f"   wave {int(np.asarray(prep.wave)[pos])}"
    lines = [head + (f"   (step {step} of the loop at {loop_name(tr, loop)})" if step is not None else "")]
    for p in prep.panels:
        line = _program_tensor_line(prep, p, pid, step)
        if line is not None:
            lines.append(line)
    es = prep.program_events(pid)
    ev = tr.events
    active, masked, oob = (int(ev.n_active[es].sum()), int(ev.n_masked[es].sum()), int(ev.n_oob[es].sum()))
    total = active + masked + oob
    frac = 100.0 * masked / total if total else 0.0
    lines.append(f"masked lanes: {masked} of {total} ({frac:.1f}%)"
                 + (f"   out-of-bounds lanes: {oob}" if oob else ""))
    st = tr.stats
    lines.append(f"bytes loaded {int(st.bytes_loaded[pos]):,}   stored {int(st.bytes_stored[pos]):,}")
    return "\n".join(lines)


def element_text(prep: PreparedTrace, p: Panel, flat: int) -> str:
    """Who read and wrote element ``flat`` of panel ``p``, and whether that is a race."""
    idx = p.multi_index(flat)
    name = f"{p.info.name}[{', '.join(str(i) for i in idx)}]"
    head = name + (f"   (flat {flat})" if len(idx) > 1 else "")
    progs, kinds, _ = element_lanes(p, flat)

    def who(kind: int, verb: str) -> str:
        ps = np.unique(progs[kinds == kind])
        if ps.size == 0:
            return f"{verb} by no program"
        if ps.size == 1:
            return f"{verb} by program {int(ps[0])} {program_xyz(int(ps[0]), prep.trace.grid)}"
        shown = ", ".join(str(int(v)) for v in ps[:8]) + (", …" if ps.size > 8 else "")
        return f"{verb} by {ps.size} programs: {shown}"

    m = p.maps
    n_reads, n_writes = int(m.n_reads.reshape(-1)[flat]), int(m.n_writes.reshape(-1)[flat])
    lines = [head, who(LIT_STORE, "written"), who(LIT_LOAD, "read")]
    if (kinds == LIT_LOAD | LIT_STORE).any():  # an atomic reads and writes in one step
        lines.append(who(LIT_LOAD | LIT_STORE, "updated atomically"))
    lines.append(f"reads: {n_reads}   writes: {n_writes}")
    if m.multiply_written.reshape(-1)[flat]:
        lines.append("⚠ written by several programs: the result depends on which store lands "
                     "last (a race) unless they all store the same value.")
    elif m.writer.reshape(-1)[flat] == SEVERAL:
        lines.append("updated by atomics of several programs: they accumulate, no race.")
    elif n_reads == 0 and n_writes == 0:
        lines.append("untouched: no program loaded or stored it (masked off or never reached"
                     + (", or its program is outside the recorded window)." if prep.trace.window else ")."))
    return "\n".join(lines)


def info_text(prep: PreparedTrace, hover: Target | None, pinned: Target | None, step: int | None,
              loop: int) -> str:
    """The info line (and tooltip): the hovered target, else the pinned one, else a hint."""
    target = hover if hover is not None else pinned
    if target is None:
        text = HINT
    elif target[0] == "program":
        text = program_text(prep, target[1], step, loop)
    else:
        text = element_text(prep, prep.panels[target[1]], target[2])
    if pinned is not None:
        what = (f"program {pinned[1]}" if pinned[0] == "program" else
                f"{prep.panels[pinned[1]].info.name}[{pinned[2]}]")
        text += f"\nPINNED: {what} — click it again or press Esc to unpin."
    return text


def window_text(trace: Trace) -> str:
    return (f"Recorded {trace.window} — the other programs did not run under the tracer."
            if trace.window else "")


def oob_line(trace: Trace, r: OOBRecord) -> str:
    """One entry of the out-of-bounds list."""
    xyz = program_xyz(r.program, trace.grid)
    past = ""
    if r.nearest_tensor:
        ex = ", ".join(str(o) for o in r.example_offsets)
        past = f" — near {r.nearest_tensor} (offsets {ex}{', …' if r.count > len(r.example_offsets) else ''})"
    where = "outside any tensor's view" if r.kind == OOB_OUTSIDE_VIEW else "out of bounds"
    return (f"program {r.program} {xyz}: {r.op} at line {r.line}, "
            f"{r.count} lane{'s' if r.count != 1 else ''} {where}{past}")


def oob_header(n: int) -> str:
    return (f"⚠ {n} out-of-bounds access{'es' if n != 1 else ''} — these "
            "lanes hit no tensor, so no tile map can show them (click one):")


def grid_title(prep: PreparedTrace) -> str:
    """Rich-text title of the program grid."""
    gx, gy, gz = prep.trace.grid
    if prep.folded_grid:
        desc = f"1-D grid ({gx},)" + (f", folded into rows of {prep.gw}" if prep.grows > 1 else "")
    else:
        desc = f"grid ({gx}, {gy}{', ' + str(gz) if gz > 1 else ''}): x → , y ↓"
    return f"<b>Programs</b> — {prep.P} {'program' if prep.P == 1 else 'programs'}, {desc}"


def panel_title(p: Panel, warn_colour: str) -> str:
    """Rich-text title of a tile map: name, shape, dtype, role; out-of-bounds lanes in
    ``warn_colour``. A map beside others gets two lines: the layout cannot shrink a title."""
    shape = "×".join(str(s) for s in p.info.shape) or "scalar"
    title = f"<b>{p.info.name}</b> [{shape}] {p.info.dtype}{' — ' if is_strip(p) else '<br>'}{p.role}"
    if p.folded and p.rows > 1:
        title += f" <span style='color:#777'>(rows of {p.cols})</span>"
    if len(p.info.shape) > 2:
        title += " <span style='color:#777'>(leading dims flattened)</span>"
    if p.n_oob:
        title += (f" <span style='color:{warn_colour}'><b>⚠ {p.n_oob} out-of-bounds "
                  f"lane{'s' if p.n_oob != 1 else ''}</b></span>")
    return title
