"""The grid view's words: hover and pin texts, loop names, titles, the out-of-bounds list —
plain strings from a ``PreparedTrace``, no Qt (titles are Qt rich text, but only as strings).
"""

from __future__ import annotations

import re

import numpy as np

from kernels.data.grid import program_xyz
from kernels.data.trace import OOB_OUTSIDE_VIEW, OP_NAMES, SEVERAL, OOBRecord, Trace

from ..i18n import QT_TRANSLATE_NOOP, translate
from .fold import WRAP_COLS, WRAP_ROWS
from .lighting import Target, element_lanes, map_flags, no_events, program_events, target_events
from .prepare import LIT_LOAD, LIT_STORE, Panel, PreparedTrace, is_strip

__all__ = [
    "HINT", "cell_words", "element_text", "fmt_range", "grid_title", "info_text", "loop_label", "loop_name",
    "oob_header", "oob_line", "panel_title", "program_text", "window_text", "window_words",
]

HINT = QT_TRANSLATE_NOOP("GridView", "Hover a program to light its elements, or an element to see who touched it; "
                                    "click to pin.")
#: the words of a tile map's role (``Panel.role``: "read + written"…) and of the access ops
ROLE_WORDS = (QT_TRANSLATE_NOOP("GridView", "read"), QT_TRANSLATE_NOOP("GridView", "written"),
              QT_TRANSLATE_NOOP("GridView", "atomics"), QT_TRANSLATE_NOOP("GridView", "untouched"),
              QT_TRANSLATE_NOOP("GridView", "load"), QT_TRANSLATE_NOOP("GridView", "store"),
              QT_TRANSLATE_NOOP("GridView", "atomic"))


def _word(text: str) -> str:
    """A word of ``ROLE_WORDS`` in the user's language."""
    return translate("GridView", text)


def fmt_range(lo: int, hi: int) -> str:
    return f"{lo}" if lo == hi else f"{lo}..{hi}"


def _dim_names(p: Panel) -> list[str]:
    nd = len(p.info.shape)
    if nd == 2:
        return [translate("GridView", "rows"), translate("GridView", "cols")]
    return [f"dim{d}" for d in range(nd)]


def loop_name(trace: Trace, j: int, short: bool = False) -> str:
    """``line N: <its source text>`` of loop ``j`` (``loop j`` when its line is unknown)."""
    if j >= len(trace.loop_lines) or trace.loop_lines[j] < 0:
        return translate("GridView", "loop {j}").format(j=j)
    ln = trace.loop_lines[j]
    src = trace.source.splitlines()
    i = ln - trace.source_first_line
    text = src[i].split("#")[0].strip() if 0 <= i < len(src) else ""
    width = 32 if short else 48
    return (translate("GridView", "line {n}").format(n=ln)
            + (f": {text[:width]}{'…' if len(text) > width else ''}" if text else ""))


def loop_label(trace: Trace | None, loop_steps: list[int], loop: int, step: int | None, n_steps: int) -> str:
    """The text beside the loop slider: the step shown, and which loop when there is one only."""
    if trace is None or not n_steps:
        return ""
    # the step first: when the bar is narrow the loop's source text is what gets cut
    where = "" if len(loop_steps) > 1 else "   —   " + translate("GridView", "loop at {where}").format(
        where=loop_name(trace, loop))
    shown = (translate("GridView", "all iterations") if step is None else
             translate("GridView", "step {step} of {n}").format(step=step + 1, n=n_steps))  # counted from 1
    return f"{shown}{where}"


def _box_words(p: Panel, el: np.ndarray) -> str:
    """The span of elements ``el`` (unique) of panel ``p``: rows and columns, or flat indices
    (of a reduced map: the elements its cells cover)."""
    if len(p.info.shape) >= 2:
        idx = np.unravel_index(el, p.info.shape)
        axes = [-1] * len(idx) if not p.coarse else [0, -1]
        return ", ".join(f"{nm} {fmt_range(*p.cell_span(int(i.min()), int(i.max()), ax))}"
                         for nm, i, ax in zip(_dim_names(p), idx, axes, strict=True))
    return translate("GridView", "elements {range}").format(range=fmt_range(*p.cell_span(int(el.min()), int(el.max()))))


def cell_words(p: Panel, short: bool = False) -> str:
    """"1 cell = 16 elements" (of a reduced map; '' for a full one); ``short``: "1 cell = 2×2", for
    a title beside others (three matmul maps at 1024² did not fit a laptop's width with the long one)."""
    kr, kc = p.cell
    if not p.coarse or kr * kc == 1:  # ("1 cell = 1 elements" said nothing)
        return ""
    n = f"{kr}×{kc}" if kr > 1 else kc
    return (translate("GridView", "1 cell = {n}") if short else translate("GridView", "1 cell = {n} elements")).format(n=n)


def _target_line(p: Panel, pid: int) -> str | None:
    """At a loop step: the tile the program stores after the loop (matmul's C tile), lit too."""
    el, _ = p.lanes_of_events(target_events(p, pid))
    if not el.size:
        return None
    return (f"  {p.info.name}: " + translate("GridView", "stored after the loop") + f"  {_box_words(p, np.unique(el))}  "
            + translate("GridView", "(the tile this step works towards)"))


def _program_tensor_line(prep: PreparedTrace, p: Panel, pid: int, step: int | None) -> str | None:
    js = program_events(p, pid, step)
    if not js.size:
        return _target_line(p, pid) if step is not None else None
    el, _ = p.lanes_of_events(js)
    ops = sorted({OP_NAMES[o] for o in prep.trace.events.op[p.ev[js]]})
    what = f"{'/'.join(_word(o) for o in ops)} ×{len(js)}"
    if not el.size:
        return f"  {p.info.name}: {what}, " + translate("GridView", "every lane masked")
    uniq = np.unique(el)
    ranges = _box_words(p, uniq)
    # a reduced map: its lanes (elements, as the tracer saw them), not the cells they fall in
    n = int(prep.lanes_active[p.ev[js]].sum()) if p.coarse else len(uniq)
    return f"  {p.info.name}: {what}  {ranges}  " + translate("GridView", "({n} elements)").format(n=n)


def _map_lines(p: Panel, pid: int) -> list[str]:
    """Panel ``p`` where program ``pid`` has no access event: what the maps say it wrote and read
    last (``lighting.map_flags``, what is lit), a line each."""
    flags, out = map_flags(p, pid), []
    for bit, word in ((LIT_STORE, "written"), (LIT_LOAD, "read")):
        el = np.flatnonzero(flags & bit)
        if el.size:
            n = translate("GridView", "({n} cells)") if p.coarse else translate("GridView", "({n} elements)")
            out.append(f"  {p.info.name}: {_word(word)} " + translate("GridView", "(from the maps)")
                       + f"  {_box_words(p, el)}  " + n.format(n=el.size))
    return out


def _kept_words(prep: PreparedTrace) -> str:
    """The programs that have access events: "programs 0..126 of 4096" (or how many, with gaps)."""
    kept = np.flatnonzero(np.diff(prep.prog_ev_ptr))
    first, last, total = int(kept[0]), int(kept[-1]), prep.P
    if kept.size == last - first + 1:
        return translate("GridView", "programs {first}..{last} of {total}").format(first=first, last=last, total=total)
    return translate("GridView", "{n} programs of {total}").format(n=kept.size, total=total)


def _maps_note(prep: PreparedTrace, pid: int, names: list[str], missing: bool) -> str:
    """Why program ``pid`` is lit from the maps (``names``: the tensors lit so; ``missing``: it has
    no access event at all though it moved bytes), and what that lights."""
    if not missing:  # its other accesses have events; these were no tile records (gathers, atomics)
        why = translate("GridView", "{tensors}: no access events of this program").format(tensors=", ".join(names))
    elif not len(prep.trace.events):
        why = translate("GridView", "This trace has no access events")
    else:  # a big GPU trace: the events stop at a whole program (kernels.gpu_trace.footprints)
        why = translate("GridView", "No access events of this program: the trace kept them for {kept} only").format(
            kept=_kept_words(prep))
    return why + " — " + translate(
        "GridView", "lit from the maps: the cells it wrote, and of those it read only the ones it read last "
                    "(a tile later programs read too is lit for the last of them).")


def _bytes_of(prep: PreparedTrace, es: np.ndarray) -> tuple[int, int]:
    """(bytes loaded, bytes stored) by events ``es`` (an atomic counts as both)."""
    tr = prep.trace
    size = np.array([t.element_size for t in tr.tensors] + [0], np.int64)
    nbytes = prep.lanes_active[es].astype(np.int64) * size[tr.events.tensor[es]]
    kind = prep.ev_kind[es]
    return int(nbytes[(kind & LIT_LOAD) != 0].sum()), int(nbytes[(kind & LIT_STORE) != 0].sum())


def program_text(prep: PreparedTrace, pid: int, step: int | None, loop: int) -> str:
    """What program ``pid`` did (in loop step ``step`` of loop ``loop``, unless None)."""
    tr = prep.trace
    x, y, z = program_xyz(pid, tr.grid)
    head = translate("GridView", "program {pid}").format(pid=pid) + f"   pid (x={x}, y={y}, z={z})"
    pos = int(prep.pos[pid])
    if pos < 0:
        return f"{head}\n" + translate("GridView", "not recorded: the tracer ran {window}.").format(
            window=window_words(tr.window))
    head += "   " + translate("GridView", "wave {w}").format(w=int(np.asarray(prep.wave)[pos]))
    at = ("   " + translate("GridView", "(step {step} of the loop at {where})").format(
        step=step + 1, where=loop_name(tr, loop)) if step is not None else "")
    lines = [head + at]
    st, es = tr.stats, prep.program_events(pid)
    # no access event at all though it moved bytes: a big GPU trace kept the first programs' only
    missing = not es.size and int(st.bytes_loaded[pos]) + int(st.bytes_stored[pos]) > 0
    tensor_lines: list[str] = []
    names: list[str] = []
    for p in prep.panels:
        if no_events(p, pid):  # lit from the maps (lighting.panel_flags)
            got = _map_lines(p, pid)
            tensor_lines += got
            names += [p.info.name] if got else []
        else:
            line = _program_tensor_line(prep, p, pid, step)
            tensor_lines += [line] if line is not None else []
    if missing or names:  # first, so that the info box shows it (a long text is cut at the end)
        lines.append(_maps_note(prep, pid, names, missing))
    lines += tensor_lines
    if step is not None:  # the step's own lanes and bytes; the whole program's bytes after them
        es = es[prep.ev_step[es] == step]
    ev = tr.events
    active, masked, oob = (int(prep.lanes_active[es].sum()), int(ev.n_masked[es].sum()), int(ev.n_oob[es].sum()))
    total = active + masked + oob
    frac = 100.0 * masked / total if total else 0.0
    if not missing:  # (no events: no lanes to count; "0 of 0" said nothing)
        lines.append(translate("GridView", "masked lanes: {n} of {total} ({frac:.1f}%)").format(
            n=masked, total=total, frac=frac)
            + ("   " + translate("GridView", "out-of-bounds lanes: {n}").format(n=oob) if oob else ""))
    if step is None:
        lines.append(translate("GridView", "bytes loaded {loaded:,}   stored {stored:,}").format(
            loaded=int(st.bytes_loaded[pos]), stored=int(st.bytes_stored[pos])))
    else:
        loaded, stored = _bytes_of(prep, es)
        lines.append(translate("GridView", "this step: bytes loaded {loaded:,}   stored {stored:,}").format(
            loaded=loaded, stored=stored) + "   " + translate(
            "GridView", "(whole program: loaded {loaded:,}   stored {stored:,})").format(
            loaded=int(st.bytes_loaded[pos]), stored=int(st.bytes_stored[pos])))
    return "\n".join(lines)


def element_text(prep: PreparedTrace, p: Panel, flat: int) -> str:
    """Who read and wrote element ``flat`` of panel ``p``, and whether that is a race."""
    idx = p.multi_index(flat)
    if p.coarse:  # a cell: the elements it covers, and how its counts are made
        name = f"{p.info.name}[{_box_words(p, np.array([flat]))}]"
        how = translate("GridView", "(reads and readers: the most of any of them; writes: the fewest)")
        head = f"{name}   {cell_words(p)}\n{how}"
    else:
        name = f"{p.info.name}[{', '.join(str(i) for i in idx)}]"
        head = name + ("   " + translate("GridView", "(flat {flat})").format(flat=flat) if len(idx) > 1 else "")
    progs, kinds, _ = element_lanes(p, flat)
    verbs = {LIT_STORE: translate("GridView", "written"), LIT_LOAD: translate("GridView", "read"),
             LIT_LOAD | LIT_STORE: translate("GridView", "updated atomically")}

    def who(kind: int) -> str:
        ps = np.unique(progs[kinds == kind])
        if ps.size == 0:
            return translate("GridView", "{verb} by no program").format(verb=verbs[kind])
        if ps.size == 1:
            return translate("GridView", "{verb} by program {pid} {xyz}").format(
                verb=verbs[kind], pid=int(ps[0]), xyz=program_xyz(int(ps[0]), prep.trace.grid))
        shown = ", ".join(str(int(v)) for v in ps[:8]) + (", …" if ps.size > 8 else "")
        return translate("GridView", "{verb} by {n} programs: {shown}").format(verb=verbs[kind], n=ps.size,
                                                                               shown=shown)

    m = p.maps
    n_reads, n_writes = int(m.n_reads.reshape(-1)[flat]), int(m.n_writes.reshape(-1)[flat])
    lines = [head, who(LIT_STORE), who(LIT_LOAD)]
    if (kinds == LIT_LOAD | LIT_STORE).any():  # an atomic reads and writes in one step
        lines.append(who(LIT_LOAD | LIT_STORE))
    lines.append(translate("GridView", "reads: {r}   writes: {w}").format(r=n_reads, w=n_writes))
    if m.multiply_written.reshape(-1)[flat]:
        lines.append(translate("GridView", "⚠ written by several programs: the result depends on which store "
                                           "lands last (a race) unless they all store the same value."))
    elif m.writer.reshape(-1)[flat] == SEVERAL:
        lines.append(translate("GridView", "updated by atomics of several programs: they accumulate, no race."))
    elif n_reads == 0 and n_writes == 0:
        lines.append(translate("GridView", "untouched: no program loaded or stored it (masked off or never "
                                           "reached, or its program is outside the recorded window).")
                     if prep.trace.window else
                     translate("GridView", "untouched: no program loaded or stored it (masked off or never "
                                           "reached)."))
    return "\n".join(lines)


def info_text(prep: PreparedTrace, hover: Target | None, pinned: Target | None, step: int | None,
              loop: int) -> str:
    """The info line (and tooltip): the hovered target, else the pinned one, else a hint."""
    target = hover if hover is not None else pinned
    if target is None:
        text = translate("GridView", HINT)
    elif target[0] == "program":
        text = program_text(prep, target[1], step, loop)
    else:
        text = element_text(prep, prep.panels[target[1]], target[2])
    if pinned is not None:
        what = (translate("GridView", "program {pid}").format(pid=pinned[1]) if pinned[0] == "program" else
                f"{prep.panels[pinned[1]].info.name}[{pinned[2]}]")
        text += "\n" + translate("GridView", "PINNED: {what} — click it again or press Esc to unpin.").format(
            what=what)
    return text


def window_words(window: str) -> str:
    """``Trace.window`` ("programs 0..255 of 4096", "programs x 0..3, y 0..1 (8 of 64)") in the
    user's language; a text of another form as it is."""
    m = re.fullmatch(r"programs (\d+)\.\.(\d+) of (\d+)", window)
    if m:
        return translate("GridView", "programs {first}..{last} of {total}").format(
            first=m.group(1), last=m.group(2), total=m.group(3))
    m = re.fullmatch(r"programs (.+) \((\d+) of (\d+)\)", window)
    if m:
        return translate("GridView", "programs {box} ({n} of {total})").format(
            box=m.group(1), n=m.group(2), total=m.group(3))
    return window


def window_text(trace: Trace) -> str:
    return (translate("GridView", "Recorded {window} — the other programs did not run under the tracer.").format(
        window=window_words(trace.window)) if trace.window else "")


def oob_line(trace: Trace, r: OOBRecord) -> str:
    """One entry of the out-of-bounds list."""
    xyz = program_xyz(r.program, trace.grid)
    past = ""
    if r.nearest_tensor:
        ex = ", ".join(str(o) for o in r.example_offsets)
        more = ", …" if r.count > len(r.example_offsets) else ""
        past = " — " + translate("GridView", "near {tensor} (offsets {offsets})").format(
            tensor=r.nearest_tensor, offsets=ex + more)
    where = (translate("GridView", "outside any tensor's view") if r.kind == OOB_OUTSIDE_VIEW else
             translate("GridView", "out of bounds"))
    lanes = (translate("GridView", "{n} lane") if r.count == 1 else translate("GridView", "{n} lanes")).format(n=r.count)
    return (translate("GridView", "program {pid} {xyz}: {op} at line {line}").format(
        pid=r.program, xyz=xyz, op=_word(r.op), line=r.line) + f", {lanes} {where}{past}")


def oob_header(n: int) -> str:
    text = (translate("GridView", "⚠ {n} out-of-bounds access") if n == 1 else
            translate("GridView", "⚠ {n} out-of-bounds accesses")).format(n=n)
    return text + " — " + translate("GridView", "these lanes hit no tensor, so no tile map can show them "
                                                "(click one):")


def grid_title(prep: PreparedTrace, two_lines: bool = False) -> str:
    """Rich-text title of the program grid; ``two_lines``: the grid's shape on a second line
    (a title is not wrapped: one wider than a narrow view pushed the grid past its right edge)."""
    gx, gy, gz = prep.trace.grid
    if prep.folded_grid:
        desc = (translate("GridView", "1-D grid ({gx},)").format(gx=gx)
                + (translate("GridView", ", folded into rows of {n}").format(n=prep.gw) if prep.grows > 1 else ""))
    else:
        desc = translate("GridView", "grid ({dims}): x → , y ↓").format(
            dims=f"{gx}, {gy}{', ' + str(gz) if gz > 1 else ''}")
    count = (translate("GridView", "{n} program") if prep.P == 1 else translate("GridView", "{n} programs")).format(
        n=prep.P)
    if two_lines:
        return translate("GridView", "<b>Programs</b> — {count},<br>{desc}").format(count=count, desc=desc)
    return translate("GridView", "<b>Programs</b> — {count}, {desc}").format(count=count, desc=desc)


def panel_title(p: Panel, warn_colour: str, beside: bool | None = None) -> str:
    """Rich-text title of a tile map: name, shape, dtype, role; out-of-bounds lanes in
    ``warn_colour``. A map beside others (``beside``; default: a 2-D map) gets two lines (name,
    shape and dtype; role and notes): the layout cannot shrink a title, and a long one pushed its
    neighbour off a laptop's screen."""
    beside = not is_strip(p) if beside is None else beside
    full = (p.full or p.info).shape
    shape = "×".join(str(s) for s in full) or translate("GridView", "scalar")
    if len(full) > 2:  # drawn with its leading dimensions flattened: say as what
        shape += f" → {int(np.prod(full[:-1]))}×{int(full[-1])}"
    role = " + ".join(_word(w) for w in p.role.split(" + "))
    title = f"<b>{p.info.name}</b> [{shape}] {p.info.dtype}{'<br>' if beside else ' — '}{role}"
    kr, kc = p.cell  # in elements, never in drawn cells
    notes = []
    if p.folded and p.rows > 1:
        notes.append(translate("GridView", "(rows of {n})").format(n=p.cols * kc))
    elif p.fold.kind == WRAP_ROWS:
        notes.append(translate("GridView", "(wrapped: {n} rows per column)").format(n=p.fold.chunk * kr))
    elif p.fold.kind == WRAP_COLS:
        notes.append(translate("GridView", "(wrapped: {n} columns per band)").format(n=p.fold.chunk * kc))
    if cell_words(p):
        notes.append("(" + cell_words(p, short=beside) + ")")
    if notes:  # after the role (a third line would run into the top axis: the title's room is two)
        title += " <span style='color:#777'>" + " ".join(notes) + "</span>"
    if p.n_oob:
        lanes = (translate("GridView", "⚠ {n} out-of-bounds lane") if p.n_oob == 1 else
                 translate("GridView", "⚠ {n} out-of-bounds lanes")).format(n=p.n_oob)
        title += f" <span style='color:{warn_colour}'><b>{lanes}</b></span>"
    return title
