"""Draw a trace as a PNG: the program grid and one tile map per tensor — numpy + Pillow only.

Colours (the legend at the bottom repeats them):

- a program has a colour from a 20-colour categorical palette (``pid % 20``): its grid cell, and
  the elements it wrote, take that colour; elements of a tensor that nobody wrote but one program
  read take the reader's colour, lighter;
- blue, darker with more readers: read by several programs (reuse, e.g. matmul's A and B);
- grey: untouched by the traced programs (never written, never read), and programs outside the
  window; a grey bar at the bottom of a grid cell: that program's masked-lane fraction;
- red: an element written by several programs (a plain store: a race on the GPU); a grid cell
  with a red frame: that program had out-of-bounds lanes (listed under the legend).

When a pixel would hold several elements (a tensor drawn downsampled) or the launch has more
than ``AUTO_MAX_PROGRAMS`` programs, 20 cycling colours are noise (and sampling every k-th
element aliases: a vector add at N = 2^22 came out as two solid halves). Then the colours are
the **launch order** instead — a smooth ramp from the first program (dark violet) to the last
(yellow) — and each pixel is the *mean* of the elements it covers, so neighbours in time look
alike and nothing aliases; an element several programs read takes its first reader's colour,
lighter. The title says which colouring was chosen and why.

``wave=w`` dims everything except the programs of wave ``w`` and the elements they touch.
``step=k`` draws iteration ``k`` (0-based) of the kernel's first loop only: the maps are made
from the accesses of that iteration (matmul: the A and B tiles of K step ``k``; the store after
the loop is not in it), and the title says which step it is, counted from 1 as the window's loop
slider and ``tilescope trace --step`` count ("step 2 of 4": ``k`` = 1).
Program ids are written on the grid cells, and on each tile a single program wrote (or alone
read), wherever the number fits. Text lines wrap to the image's width. The image's
``info["text_lines"]`` lists every line drawn as (x, y, text), ``info["pid_labels"]`` every
program id as (pid, x, y) of its centre, ``info["tiles"]`` every tile map as (tensor, x, y,
width, height) and ``info["colouring"]`` the colouring chosen ("program" or "launch order").
1-D tensors are folded into rows (a power-of-two width near the square root of their size);
tensors of more than two dimensions are drawn as (product of leading dims) x last dim.
No Qt, no matplotlib, no torch.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ..data.maps import derive, event_lane_mask, footprint, programs_in_wave
from ..data.trace import NO_PROGRAM, OP_LOAD, SEVERAL, AccessTable, Trace

__all__ = ["PALETTE", "GREY", "RED", "AUTO_MAX_PROGRAMS", "render", "render_png", "tensor_rgb", "grid_rgb",
           "fold_shape", "loop_steps", "loop_where", "step_trace", "tensor_owner", "launch_order_rgb", "colouring"]

# Tableau-20: distinguishable neighbours, so adjacent programs never share a colour
PALETTE = np.array([
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189), (140, 86, 75),
    (227, 119, 194), (188, 189, 34), (23, 190, 207), (174, 199, 232), (255, 187, 120),
    (152, 223, 138), (197, 176, 213), (196, 156, 148), (247, 182, 210), (219, 219, 141),
    (158, 218, 229), (57, 59, 121), (99, 121, 57), (140, 109, 49), (132, 60, 57),
], dtype=np.uint8)
GREY = np.array((205, 205, 205), np.uint8)
RED = np.array((214, 39, 40), np.uint8)
BG = (255, 255, 255)
INK = (20, 20, 20)
_BLUE_LIGHT = np.array((198, 219, 239), np.float32)
_BLUE_DARK = np.array((8, 48, 107), np.float32)
#: above this many programs each program's own colour is noise (the grid view's rule too)
AUTO_MAX_PROGRAMS = 256
# viridis at nine evenly spaced points (matplotlib's table): the launch-order ramp
_VIRIDIS = np.array([(68, 1, 84), (71, 44, 122), (59, 81, 139), (44, 113, 142), (33, 144, 141),
                     (39, 173, 129), (92, 200, 99), (170, 220, 50), (253, 231, 37)], np.float32)


def launch_order_rgb(rank: np.ndarray, n: int) -> np.ndarray:
    """uint8 [..., 3]: the launch-order ramp at ``rank`` (0 = first of ``n``)."""
    t = np.asarray(rank, np.float64) / max(n - 1, 1) * (len(_VIRIDIS) - 1)
    i = np.clip(np.floor(t).astype(np.int64), 0, len(_VIRIDIS) - 2)
    f = (t - i)[..., None]
    return np.rint(_VIRIDIS[i] * (1 - f) + _VIRIDIS[i + 1] * f).astype(np.uint8)


def colouring(trace: Trace, max_side: int) -> tuple[str, str]:
    """("program" | "launch order", why): the colouring ``render`` uses for ``trace`` at
    ``max_side`` pixels (see the module doc); ``why`` is '' for "program"."""
    for info in trace.tensors:
        rows, cols = fold_shape(info.shape)
        k = _fit_factor(rows, cols, max_side)[1]
        if k > 1:
            return "launch order", f"a pixel holds up to {k * k} elements of {info.name}"
    if trace.n_programs > AUTO_MAX_PROGRAMS:
        return "launch order", f"{trace.n_programs} programs are too many for a colour each"
    return "program", ""


def fold_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, cols) a tensor is drawn as."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        n = max(1, shape[0])
        width = min(n, 1 << max(0, math.ceil(math.log2(math.sqrt(n)))))
        return -(-n // width), width
    return int(np.prod(shape[:-1])), int(shape[-1])


def _lighten(rgb: np.ndarray, amount: float) -> np.ndarray:
    return (rgb.astype(np.float32) * (1 - amount) + 255 * amount).astype(np.uint8)


def _first_readers(trace: Trace, t: int) -> np.ndarray | None:
    """int64 [numel]: the lowest pid that loaded each element of tensor ``t`` (-1: none); None
    when the trace has no per-access record of its loads (a GPU trace keeps maps only)."""
    ev = trace.events
    rows = (ev.tensor == t) & (ev.op == OP_LOAD)
    if not rows.any():
        return None
    numel = trace.tensors[t].numel
    first = np.full(numel, np.iinfo(np.int32).max, np.int32)
    np.minimum.at(first, ev.elements[event_lane_mask(ev, rows)].astype(np.intp),
                  np.repeat(ev.program[rows], ev.n_active[rows]).astype(np.int32))
    return np.where(first == np.iinfo(np.int32).max, -1, first).astype(np.int64)


def tensor_rgb(trace: Trace, t: int, focus: np.ndarray | None = None,
               scheme: str = "program") -> tuple[np.ndarray, np.ndarray]:
    """(uint8 [rows, cols, 3] colours, bool [rows, cols] "conflict" flags) of tensor ``t``.
    ``focus``: bool of the tensor's shape; elements outside it are dimmed. ``scheme``:
    "program" (the palette) or "launch order" (the ramp; see the module doc)."""
    info, m = trace.tensors[t], trace.maps[t]
    numel = info.numel
    rows, cols = fold_shape(info.shape)
    writer = m.writer.ravel()
    reader = m.reader.ravel()
    n_readers = m.n_readers.ravel()
    if scheme == "launch order":
        n = max(trace.n_programs, 1)

        def colour(pids: np.ndarray) -> np.ndarray:
            return launch_order_rgb(pids, n)
    else:
        def colour(pids: np.ndarray) -> np.ndarray:
            return PALETTE[pids % len(PALETTE)]
    rgb = np.empty((numel, 3), np.uint8)
    rgb[:] = GREY
    one_reader = (writer == NO_PROGRAM) & (reader >= 0)
    rgb[one_reader] = _lighten(colour(reader[one_reader]), 0.45)
    many = (writer == NO_PROGRAM) & (reader == SEVERAL)
    first = _first_readers(trace, t) if scheme == "launch order" and many.any() else None
    if first is None and scheme == "launch order" and m.last_reader is not None:
        first = m.last_reader.ravel().astype(np.int64)  # a GPU trace: the last reader instead
    if first is not None:  # shared reads: the first (or last) reader's place in the launch, lighter
        known = many & (first >= 0)
        rgb[known] = _lighten(colour(first[known]), 0.45)
        many &= ~known
    if many.any():
        top = max(2, int(n_readers.max()))
        f = ((n_readers[many] - 1) / (top - 1)).astype(np.float32)[:, None]
        rgb[many] = (_BLUE_LIGHT * (1 - f) + _BLUE_DARK * f).astype(np.uint8)
    wrote = writer >= 0
    rgb[wrote] = colour(writer[wrote])
    bad = m.multiply_written.ravel()
    rgb[writer == SEVERAL] = _lighten(RED, 0.5)  # several atomics: not a conflict, still shared
    rgb[bad] = RED
    if focus is not None:
        dim = ~focus.ravel()
        rgb[dim] = _lighten(rgb[dim], 0.75)
    pad = rows * cols - numel
    if pad:
        rgb = np.concatenate([rgb, np.full((pad, 3), 255, np.uint8)])
        bad = np.concatenate([bad, np.zeros(pad, bool)])
    return rgb.reshape(rows, cols, 3), bad.reshape(rows, cols)


def _fit_factor(rows: int, cols: int, max_side: int, max_scale: int = 16) -> tuple[int, int]:
    """(upscale s, downsample k) of ``_fit``: one of them is 1."""
    big = max(rows, cols)
    if big <= max_side:
        return max(1, min(max_scale, max_side // big)), 1
    return 1, -(-big // max_side)


def _scaled(a: np.ndarray, max_side: int) -> np.ndarray:
    """``a`` [rows, cols, ...] at the size ``_fit`` draws it (whole-pixel repeat, or every k-th)."""
    s, k = _fit_factor(a.shape[0], a.shape[1], max_side)
    return np.repeat(np.repeat(a, s, axis=0), s, axis=1) if k == 1 else a[::k, ::k]


def _block_mean(rgb: np.ndarray, k: int) -> np.ndarray:
    """Each k × k block of ``rgb`` as its mean colour (the padding past an edge left out)."""
    rows, cols = rgb.shape[:2]
    pr, pc = -(-rows // k) * k - rows, -(-cols // k) * k - cols
    a = np.pad(rgb.astype(np.float32), ((0, pr), (0, pc), (0, 0)))
    w = np.pad(np.ones((rows, cols), np.float32), ((0, pr), (0, pc)))
    R, C = a.shape[0] // k, a.shape[1] // k
    total = a.reshape(R, k, C, k, 3).sum(axis=(1, 3))
    count = w.reshape(R, k, C, k).sum(axis=(1, 3))[..., None]
    return np.rint(total / np.maximum(count, 1)).astype(np.uint8)


def _fit(rgb: np.ndarray, bad: np.ndarray, max_side: int, max_scale: int = 16, mean: bool = False) -> np.ndarray:
    """Scale an image to at most ``max_side`` pixels: whole-pixel upscaling, or block
    downsampling (every k-th element, or with ``mean`` each block's mean colour: nothing
    aliases) where a block with any conflict stays red (never hidden by the sampling)."""
    rows, cols = rgb.shape[:2]
    s, k = _fit_factor(rows, cols, max_side, max_scale)
    if k == 1:
        return np.repeat(np.repeat(rgb, s, axis=0), s, axis=1)
    out = _block_mean(rgb, k) if mean else rgb[::k, ::k].copy()
    pr, pc = -(-rows // k) * k - rows, -(-cols // k) * k - cols
    b = np.pad(bad, ((0, pr), (0, pc)))
    blocks = b.reshape(b.shape[0] // k, k, b.shape[1] // k, k).any(axis=(1, 3))
    out[blocks[: out.shape[0], : out.shape[1]]] = RED
    return out


def tensor_owner(trace: Trace, t: int) -> np.ndarray:
    """int32 [rows, cols] (folded as drawn): the one program that wrote each element, else the one
    that alone read it, else -1 (several, nobody, padding)."""
    m = trace.maps[t]
    writer, reader = m.writer.ravel(), m.reader.ravel()
    owner = np.where(writer >= 0, writer, np.where((writer == NO_PROGRAM) & (reader >= 0), reader, -1))
    rows, cols = fold_shape(trace.tensors[t].shape)
    out = np.full(rows * cols, -1, np.int32)
    out[: owner.size] = owner
    return out.reshape(rows, cols)


# ---------------------------------------------------------------------------------------------
# one step of a loop


def loop_steps(trace: Trace, loop: int = 0) -> int:
    """How many iterations of loop ``loop`` the trace saw (0: no such loop)."""
    it = trace.events.iters
    if it.ndim != 2 or loop >= it.shape[1] or not len(it):
        return 0
    return int(it[:, loop].max()) + 1


def loop_where(trace: Trace, loop: int) -> str:
    """Where loop ``loop`` is, for a person: "the loop at line 57 (for k in range(...))"."""
    line = trace.loop_lines[loop] if loop < len(trace.loop_lines) else -1
    if line < 0:
        return f"loop {loop}"
    src = trace.source.splitlines()
    i = line - trace.source_first_line
    text = src[i].split("#")[0].strip() if 0 <= i < len(src) else ""
    return f"the loop at line {line}" + (f" ({text})" if text else "")


def step_trace(trace: Trace, step: int, loop: int = 0) -> Trace:
    """``trace`` as iteration ``step`` of loop ``loop`` alone made it: the events of that
    iteration, and the maps and program statistics derived from them. Raises ValueError (one
    line, saying the steps there are) when the trace has no such loop or step."""
    n = loop_steps(trace, loop)
    if n == 0:
        raise ValueError(f"step {step}: {trace.kernel} has no loop to step through (no access was made in a loop)")
    if not 0 <= step < n:
        raise ValueError(f"step {step} is out of range: {loop_where(trace, loop)} ran steps 0..{n - 1}")
    ev = trace.events
    rows = ev.iters[:, loop] == step
    n_active = ev.n_active[rows]
    sub = AccessTable(
        program=ev.program[rows], op=ev.op[rows], tensor=ev.tensor[rows], line=ev.line[rows], iters=ev.iters[rows],
        n_active=n_active, n_masked=ev.n_masked[rows], n_oob=ev.n_oob[rows],
        lane_start=np.cumsum(n_active, dtype=np.int64) - n_active,
        elements=ev.elements[event_lane_mask(ev, rows)])
    maps, stats = derive(trace.tensors, sub, trace.programs)
    return dataclasses.replace(trace, events=sub, maps=maps, stats=stats)


def _grid_layout(trace: Trace) -> tuple[int, int]:
    gx, gy, gz = trace.grid
    if gy * gz == 1 and gx > 64:  # a long 1-D grid: fold into rows of 64 (or fewer) programs
        cols = 64 if gx >= 4096 else 32
        return -(-gx // cols), cols
    return gy * gz, gx


def grid_rgb(trace: Trace, cell: int, wave: int | None = None, scheme: str = "program") -> np.ndarray:
    """uint8 image of the program grid: one ``cell`` x ``cell`` square per program (``scheme``
    as for ``tensor_rgb``)."""
    rows, cols = _grid_layout(trace)
    n = trace.n_programs
    colours = np.empty((rows * cols, 3), np.uint8)
    colours[:] = 255
    colours[:n] = GREY
    colours[trace.programs] = (launch_order_rgb(trace.programs, n) if scheme == "launch order"
                               else PALETTE[trace.programs % len(PALETTE)])
    if wave is not None:
        inw = np.zeros(rows * cols, bool)
        inw[programs_in_wave(trace, wave)] = True
        colours[:n][~inw[:n]] = _lighten(colours[:n][~inw[:n]], 0.75)
    img = np.repeat(np.repeat(colours.reshape(rows, cols, 3), cell, axis=0), cell, axis=1)
    if cell >= 4:  # masked-lane bar and OOB frame per cell
        frac = np.zeros(rows * cols)
        frac[trace.programs] = trace.stats.masked_fraction
        oob = np.zeros(rows * cols, bool)
        oob[trace.programs] = trace.stats.n_oob > 0
        for idx in np.flatnonzero(frac > 0).tolist():
            r, c = divmod(idx, cols)
            h = max(3, int(round(frac[idx] * cell)))
            img[r * cell + cell - h: (r + 1) * cell, c * cell: (c + 1) * cell] = (110, 110, 110)
        for idx in np.flatnonzero(oob).tolist():
            r, c = divmod(idx, cols)
            y0, x0 = r * cell, c * cell
            w = max(1, cell // 6)
            img[y0: y0 + w, x0: x0 + cell] = RED
            img[y0 + cell - w: y0 + cell, x0: x0 + cell] = RED
            img[y0: y0 + cell, x0: x0 + w] = RED
            img[y0: y0 + cell, x0 + cell - w: x0 + cell] = RED
    else:  # too small for decorations: OOB programs are filled red
        oob_p = trace.programs[trace.stats.n_oob > 0]
        for idx in oob_p.tolist():
            r, c = divmod(idx, cols)
            img[r * cell: (r + 1) * cell, c * cell: (c + 1) * cell] = RED
    if cell >= 6:  # thin white lines between cells
        img[::cell, :] = 255
        img[:, ::cell] = 255
    return img


# ---------------------------------------------------------------------------------------------
# text: wrapped lines and program ids


def _wrap(text: str, font: Any, width: float, indent: str = "    ") -> list[str]:
    """``text`` in lines of at most ``width`` pixels: broken at spaces, the next lines indented;
    a word wider than a line is cut."""
    if font.getlength(text) <= width:
        return [text]
    lines, cur = [], ""
    for word in text.split(" "):
        cand = f"{cur} {word}" if cur else word
        if cur.strip() and font.getlength(cand) > width:
            lines.append(cur)
            cand = indent + word
        cur = cand
    lines.append(cur)
    out = []
    for ln in lines:
        while font.getlength(ln) > width and len(ln) > len(indent) + 1:
            lo, hi = len(indent) + 1, len(ln) - 1  # the longest head that fits: at least one character
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if font.getlength(ln[:mid]) <= width else (lo, mid - 1)
            out.append(ln[:lo])
            ln = indent + ln[lo:]
        out.append(ln)
    return out


def _ink_for(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """Black on light colours, white on dark ones."""
    return INK if 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 140 else (255, 255, 255)


def _grid_labels(n_programs: int, cols: int, cell: int, font: Any) -> list[tuple[int, float, float]]:
    """(pid, x, y) of the centre of every grid cell whose number fits in it."""
    if cell < 12:
        return []
    out = []
    for pid in range(n_programs):
        if font.getlength(str(pid)) + 3 > cell:  # later ids only get longer
            break
        r, c = divmod(pid, cols)
        out.append((pid, c * cell + cell / 2, r * cell + cell / 2))
    return out


def _tile_labels(owner: np.ndarray, font: Any, text_h: int = 10) -> list[tuple[int, float, float]]:
    """(pid, x, y) of the centre of each program's tile in ``owner`` (as drawn) when the tile is
    a box it fills (nine tenths at least) and its number fits in it."""
    h, w = owner.shape
    flat = owner.ravel()
    at = np.flatnonzero(flat >= 0)
    if not at.size:
        return []
    pids, inv = np.unique(flat[at], return_inverse=True)
    ys, xs = np.divmod(at, w)
    n = pids.size
    y0, x0 = np.full(n, h), np.full(n, w)
    y1, x1 = np.full(n, -1), np.full(n, -1)
    np.minimum.at(y0, inv, ys)
    np.minimum.at(x0, inv, xs)
    np.maximum.at(y1, inv, ys)
    np.maximum.at(x1, inv, xs)
    bw, bh = x1 - x0 + 1, y1 - y0 + 1
    filled = np.bincount(inv, minlength=n) >= 0.9 * bw * bh
    out = []
    for i in np.flatnonzero(filled & (bh >= text_h + 4) & (bw >= 10)).tolist():
        pid = int(pids[i])
        if font.getlength(str(pid)) + 4 <= bw[i]:
            out.append((pid, (x0[i] + x1[i] + 1) / 2, (y0[i] + y1[i] + 1) / 2))
    return out


def _draw_labels(draw: Any, img: np.ndarray, labels: list[tuple[int, float, float]], origin: tuple[int, int],
                 font: Any, drawn: list[tuple[int, float, float]]) -> None:
    ox, oy = origin
    for pid, x, y in labels:
        under = img[min(int(y), img.shape[0] - 1), min(int(x), img.shape[1] - 1)]
        draw.text((ox + x, oy + y), str(pid), fill=_ink_for(tuple(int(v) for v in under)), font=font, anchor="mm")
        drawn.append((pid, ox + x, oy + y))


# ---------------------------------------------------------------------------------------------
# the picture


def _title(trace: Trace, wave: int | None, step: int | None, loop: int, why: str = "") -> list[str]:
    gx, gy, gz = trace.grid
    title = [f"{trace.kernel}: grid {gx}x{gy}x{gz} = {trace.n_programs} programs, {trace.programs.size} traced"
             + (f" ({trace.window})" if trace.window else ""),
             "values: " + " ".join(f"{k}={v}" for k, v in trace.values.items())]
    if why:
        title.append(f"colour = launch order (first program dark violet -> last yellow), chosen because {why}")
    if step is not None:
        # counted from 1, as the window's loop slider says it ("step 1 of 8") and the CLI's --step takes it
        title.append(f"step {step + 1} of {loop_steps(trace, loop)} in {loop_where(trace, loop)}: only the "
                     "accesses of that iteration (those before or after the loop are left out)")
    if wave is not None:
        title.append(f"highlight: wave {wave} ({trace.n_sms} SMs x {trace.programs_per_sm}/SM)")
    return title


def _grid_caption(trace: Trace, rows: int, cols: int) -> str:
    _, gy, gz = trace.grid
    if gy * gz > 1:
        return "programs: x across, y down" + (" (z blocks stacked)" if gz > 1 else "")
    if rows > 1:
        return f"programs: pid left to right, {cols} per row"
    return "programs: pid left to right"


def _tile_caption(trace: Trace, t: int) -> str:
    info, m = trace.tensors[t], trace.maps[t]
    shape = "x".join(str(s) for s in info.shape) or "scalar"
    r, c = fold_shape(info.shape)
    folded = f" drawn as {r}x{c}" if len(info.shape) != 2 else ""
    return (f"{info.name} [{shape} {info.dtype}]{folded}: {int(np.count_nonzero(m.n_writes))} written, "
            f"{int(np.count_nonzero(m.n_reads))} read, {int(np.count_nonzero(m.multiply_written))} multiply written")


_LEGEND = (
    ("palette", "colour of a program: its grid cell and the elements it wrote (cycles every 20); "
                "the number on a cell or tile is its program id"),
    ("light", "lighter: read by that one program only"),
    ("blue", "read by several programs (darker = more readers)"),
    ("grey", "untouched / programs not traced; grey bar in a cell = masked lanes"),
    ("red", "written by several programs; red frame = program with out-of-bounds lanes"),
)


_LEGEND_ORDER = (
    ("ramp", "launch order of a program: its grid cell and the elements it wrote (first dark violet, last "
             "yellow); a pixel is the mean of the elements it covers"),
    ("light", "lighter: read only (by one program; when several read it, the first — on the GPU the last — of "
              "them)"),
    ("blue", "read by several programs, first reader unknown (darker = more readers)"),
    ("grey", "untouched / programs not traced; grey bar in a cell = masked lanes"),
    ("red", "written by several programs; red frame = program with out-of-bounds lanes"),
)

def render(trace: Trace, wave: int | None = None, max_side: int = 480, step: int | None = None,
           loop: int = 0) -> Any:
    """A PIL image of the trace (see the module doc for the colours, ``step`` and the text)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default()
    line_h, pad = 14, 10
    stepped = trace if step is None else step_trace(trace, step, loop)  # a step it has not: ValueError first
    scheme, why = colouring(trace, max_side)
    title = _title(trace, wave, step, loop, why)
    trace = stepped
    rows, cols = _grid_layout(trace)
    cell = int(max(2, min(24, max_side // max(rows, cols))))
    grid_img = grid_rgb(trace, cell, wave, scheme)
    focus = None
    if wave is not None:
        focus = [f.read | f.written for f in footprint(trace, programs_in_wave(trace, wave))]
    tiles = []
    for t in range(len(trace.tensors)):
        rgb, bad = tensor_rgb(trace, t, None if focus is None else focus[t], scheme)
        img = np.ascontiguousarray(_fit(rgb, bad, max_side, mean=scheme == "launch order"))
        tiles.append((_tile_caption(trace, t), img, _tile_labels(_scaled(tensor_owner(trace, t), max_side), font)))
    oob_lines = [f"OOB: program {r.program} {r.op} line {r.line}: {r.count} lane(s) {r.kind}"
                 + (f" near {r.nearest_tensor}" if r.nearest_tensor else "") for r in trace.oob[:6]]
    if len(trace.oob) > 6:
        oob_lines.append(f"... {len(trace.oob) - 6} more OOB record(s)")

    width = max([grid_img.shape[1]] + [img.shape[1] for _, img, _ in tiles] + [640]) + 2 * pad
    text_w = width - 2 * pad

    def wrap(lines: list[str], indent: int = 0) -> list[str]:
        return [w for ln in lines for w in _wrap(ln, font, text_w - indent)]

    title = wrap(title)
    grid_caption = wrap([_grid_caption(trace, rows, cols)])
    tiles = [(wrap([cap]), img, labels) for cap, img, labels in tiles]
    legend = [(key, wrap([text], 20)) for key, text in (_LEGEND_ORDER if scheme == "launch order" else _LEGEND)]
    oob_lines = wrap(oob_lines)
    height = pad + line_h * len(title) + pad + line_h * len(grid_caption) + grid_img.shape[0] + pad
    height += sum(line_h * len(cap) + img.shape[0] + pad for cap, img, _ in tiles)
    height += line_h * (sum(len(t) for _, t in legend) + len(oob_lines)) + 2 * pad
    canvas = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(canvas)
    drawn: list[tuple[int, int, str]] = []

    def text(x: int, y: int, lines: list[str], fill: tuple[int, int, int] = INK) -> int:
        for ln in lines:
            draw.text((x, y), ln, fill=fill, font=font)
            drawn.append((x, y, ln))
            y += line_h
        return y

    y = text(pad, pad, title) + pad
    y = text(pad, y, grid_caption)
    canvas.paste(Image.fromarray(grid_img), (pad, y))
    labelled: list[tuple[int, float, float]] = []
    _draw_labels(draw, grid_img, _grid_labels(trace.n_programs, cols, cell, font), (pad, y), font, labelled)
    y += grid_img.shape[0] + pad
    placed: list[tuple[str, int, int, int, int]] = []  # (tensor, x, y, width, height) of each tile map
    for t, (cap, img, labels) in enumerate(tiles):
        y = text(pad, y, cap)
        canvas.paste(Image.fromarray(img), (pad, y))
        placed.append((trace.tensors[t].name, pad, y, img.shape[1], img.shape[0]))
        _draw_labels(draw, img, labels, (pad, y), font, labelled)
        y += img.shape[0] + pad
    swatch = {"palette": PALETTE[0], "light": _lighten(PALETTE[0] if scheme == "program" else
                                                       launch_order_rgb(0, 2), 0.45),
              "blue": _BLUE_DARK.astype(np.uint8),
              "grey": GREY, "red": RED}
    for key, lines in legend:
        if key == "ramp":
            ramp = launch_order_rgb(np.arange(15), 15)
            for i in range(15):
                draw.rectangle((pad + i, y + 2, pad + i, y + 11), fill=tuple(int(v) for v in ramp[i]))
        elif key == "palette":
            for i in range(5):
                draw.rectangle((pad + 3 * i, y + 2, pad + 3 * i + 2, y + 11), fill=tuple(int(v) for v in PALETTE[i]))
        else:
            draw.rectangle((pad, y + 2, pad + 14, y + 11), fill=tuple(int(v) for v in swatch[key]))
        y = text(pad + 20, y, lines)
    text(pad, y + pad, oob_lines, fill=tuple(int(v) for v in RED))
    canvas.info["text_lines"], canvas.info["pid_labels"] = drawn, labelled
    canvas.info["tiles"], canvas.info["colouring"] = placed, scheme
    return canvas


def render_png(trace: Trace, path: str, wave: int | None = None, max_side: int = 480, step: int | None = None,
               loop: int = 0) -> str:
    """Write ``render(trace)`` to ``path`` as PNG; returns the path. Raises ValueError for a
    ``step`` the trace does not have (before writing anything)."""
    render(trace, wave=wave, max_side=max_side, step=step, loop=loop).save(path, format="PNG")
    return path
