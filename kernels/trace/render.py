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

``wave=w`` dims everything except the programs of wave ``w`` and the elements they touch.
1-D tensors are folded into rows (a power-of-two width near the square root of their size);
tensors of more than two dimensions are drawn as (product of leading dims) x last dim.
No Qt, no matplotlib, no torch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..data.maps import footprint, programs_in_wave
from ..data.trace import NO_PROGRAM, SEVERAL, Trace

__all__ = ["PALETTE", "GREY", "RED", "render", "render_png", "tensor_rgb", "grid_rgb", "fold_shape"]

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


def tensor_rgb(trace: Trace, t: int, focus: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(uint8 [rows, cols, 3] colours, bool [rows, cols] "conflict" flags) of tensor ``t``.
    ``focus``: bool of the tensor's shape; elements outside it are dimmed."""
    info, m = trace.tensors[t], trace.maps[t]
    numel = info.numel
    rows, cols = fold_shape(info.shape)
    writer = m.writer.ravel()
    reader = m.reader.ravel()
    n_readers = m.n_readers.ravel()
    rgb = np.empty((numel, 3), np.uint8)
    rgb[:] = GREY
    one_reader = (writer == NO_PROGRAM) & (reader >= 0)
    rgb[one_reader] = _lighten(PALETTE[reader[one_reader] % len(PALETTE)], 0.45)
    many = (writer == NO_PROGRAM) & (reader == SEVERAL)
    if many.any():
        top = max(2, int(n_readers.max()))
        f = ((n_readers[many] - 1) / (top - 1)).astype(np.float32)[:, None]
        rgb[many] = (_BLUE_LIGHT * (1 - f) + _BLUE_DARK * f).astype(np.uint8)
    wrote = writer >= 0
    rgb[wrote] = PALETTE[writer[wrote] % len(PALETTE)]
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


def _fit(rgb: np.ndarray, bad: np.ndarray, max_side: int, max_scale: int = 16) -> np.ndarray:
    """Scale an image to at most ``max_side`` pixels: whole-pixel upscaling, or block
    downsampling where a block with any conflict stays red (never hidden by the sampling)."""
    rows, cols = rgb.shape[:2]
    big = max(rows, cols)
    if big <= max_side:
        s = max(1, min(max_scale, max_side // big))
        return np.repeat(np.repeat(rgb, s, axis=0), s, axis=1)
    k = -(-big // max_side)
    out = rgb[::k, ::k].copy()
    pr, pc = -(-rows // k) * k - rows, -(-cols // k) * k - cols
    b = np.pad(bad, ((0, pr), (0, pc)))
    blocks = b.reshape(b.shape[0] // k, k, b.shape[1] // k, k).any(axis=(1, 3))
    out[blocks[: out.shape[0], : out.shape[1]]] = RED
    return out


def _grid_layout(trace: Trace) -> tuple[int, int]:
    gx, gy, gz = trace.grid
    if gy * gz == 1 and gx > 64:  # a long 1-D grid: fold into rows of 64 (or fewer) programs
        cols = 64 if gx >= 4096 else 32
        return -(-gx // cols), cols
    return gy * gz, gx


def grid_rgb(trace: Trace, cell: int, wave: int | None = None) -> np.ndarray:
    """uint8 image of the program grid: one ``cell`` x ``cell`` square per program."""
    rows, cols = _grid_layout(trace)
    n = trace.n_programs
    colours = np.empty((rows * cols, 3), np.uint8)
    colours[:] = 255
    colours[:n] = GREY
    colours[trace.programs] = PALETTE[trace.programs % len(PALETTE)]
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


def render(trace: Trace, wave: int | None = None, max_side: int = 480) -> Any:
    """A PIL image of the trace (see the module doc for the colours)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default()
    line_h = 14
    rows, cols = _grid_layout(trace)
    cell = int(max(2, min(24, max_side // max(rows, cols))))
    grid_img = grid_rgb(trace, cell, wave)
    focus = None
    if wave is not None:
        focus = [f.read | f.written for f in footprint(trace, programs_in_wave(trace, wave))]
    tiles = []
    for t, info in enumerate(trace.tensors):
        rgb, bad = tensor_rgb(trace, t, None if focus is None else focus[t])
        tiles.append((info, _fit(rgb, bad, max_side)))

    gx, gy, gz = trace.grid
    title = [f"{trace.kernel}: grid {gx}x{gy}x{gz} = {trace.n_programs} programs, {trace.programs.size} traced"
             + (f" ({trace.window})" if trace.window else ""),
             "values: " + " ".join(f"{k}={v}" for k, v in trace.values.items())[:150]]
    if wave is not None:
        title.append(f"highlight: wave {wave} ({trace.n_sms} SMs x {trace.programs_per_sm}/SM)")
    legend = [
        ("palette", "colour of a program: its grid cell and the elements it wrote (cycles every 20)"),
        ("light", "lighter: read by that one program only"),
        ("blue", "read by several programs (darker = more readers)"),
        ("grey", "untouched / programs not traced; grey bar in a cell = masked lanes"),
        ("red", "written by several programs; red frame = program with out-of-bounds lanes"),
    ]
    oob_lines = [f"OOB: program {r.program} {r.op} line {r.line}: {r.count} lane(s) {r.kind}"
                 + (f" near {r.nearest_tensor}" if r.nearest_tensor else "") for r in trace.oob[:6]]
    if len(trace.oob) > 6:
        oob_lines.append(f"... {len(trace.oob) - 6} more OOB record(s)")

    pad = 10
    width = max([grid_img.shape[1]] + [img.shape[1] for _, img in tiles] + [640]) + 2 * pad
    height = pad + line_h * len(title) + pad
    height += line_h + grid_img.shape[0] + pad
    for _, img in tiles:
        height += line_h + img.shape[0] + pad
    height += line_h * (len(legend) + len(oob_lines)) + 2 * pad
    canvas = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(canvas)
    y = pad
    for text in title:
        draw.text((pad, y), text, fill=INK, font=font)
        y += line_h
    y += pad
    if gy * gz > 1:
        label = "programs: x across, y down" + (" (z blocks stacked)" if gz > 1 else "")
    elif rows > 1:
        label = f"programs: pid left to right, {cols} per row"
    else:
        label = "programs: pid left to right"
    draw.text((pad, y), label, fill=INK, font=font)
    y += line_h
    canvas.paste(Image.fromarray(grid_img), (pad, y))
    y += grid_img.shape[0] + pad
    for t, (info, img) in enumerate(tiles):
        m = trace.maps[t]
        shape = "x".join(str(s) for s in info.shape) or "scalar"
        r, c = fold_shape(info.shape)
        folded = f" drawn as {r}x{c}" if len(info.shape) != 2 else ""
        draw.text((pad, y), f"{info.name} [{shape} {info.dtype}]{folded}: "
                            f"{int(np.count_nonzero(m.n_writes))} written, {int(np.count_nonzero(m.n_reads))} read, "
                            f"{int(np.count_nonzero(m.multiply_written))} multiply written", fill=INK, font=font)
        y += line_h
        canvas.paste(Image.fromarray(np.ascontiguousarray(img)), (pad, y))
        y += img.shape[0] + pad
    swatch = {"palette": PALETTE[0], "light": _lighten(PALETTE[0], 0.45), "blue": _BLUE_DARK.astype(np.uint8),
              "grey": GREY, "red": RED}
    for key, text in legend:
        col = tuple(int(v) for v in swatch[key])
        if key == "palette":
            for i in range(5):
                draw.rectangle((pad + 3 * i, y + 2, pad + 3 * i + 2, y + 11), fill=tuple(int(v) for v in PALETTE[i]))
        else:
            draw.rectangle((pad, y + 2, pad + 14, y + 11), fill=col)
        draw.text((pad + 20, y), text, fill=INK, font=font)
        y += line_h
    y += pad
    for text in oob_lines:
        draw.text((pad, y), text, fill=tuple(int(v) for v in RED), font=font)
        y += line_h
    return canvas


def render_png(trace: Trace, path: str, wave: int | None = None, max_side: int = 480) -> str:
    """Write ``render(trace)`` to ``path`` as PNG; returns the path."""
    render(trace, wave=wave, max_side=max_side).save(path, format="PNG")
    return path
