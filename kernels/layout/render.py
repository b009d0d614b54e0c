"""One access's block as a PNG: a cell per element coloured by the warp that holds it, the lane
written in the cell where it fits — numpy + Pillow, no Qt (``tilescope layout --png``).

A 1-D block is folded into rows of 32 elements; a block of more dimensions is drawn as (product
of the leading dims) x last dim. Elements no thread holds are grey.
"""

from __future__ import annotations

import numpy as np

from ..data.layout import AccessLayout

__all__ = ["WARP_COLOURS", "render", "render_png"]

#: one colour per warp (cycled past 8)
WARP_COLOURS = np.array([(78, 121, 167), (242, 142, 43), (89, 161, 79), (225, 87, 89), (118, 183, 178),
                         (237, 201, 72), (176, 122, 161), (255, 157, 167)], dtype=np.uint8)
_GREY = np.array((200, 200, 200), dtype=np.uint8)


def _grid(a: np.ndarray) -> np.ndarray:
    if a.ndim == 1:
        cols = min(32, a.shape[0])
        rows = -(-a.shape[0] // cols)
        return np.r_[a, np.full(rows * cols - a.shape[0], -1)].reshape(rows, cols)
    return a.reshape(-1, a.shape[-1])


def render(access: AccessLayout, title: str = "", max_side: int = 1024) -> tuple[np.ndarray, list[str]]:
    """(RGB image uint8 [H, W, 3], the text lines drawn) of ``access``'s thread map."""
    from PIL import Image, ImageDraw, ImageFont

    if access.threads is None:
        raise ValueError(f"access #{access.index} ({access.op}) has no threads: a shared-memory operand")
    warp, lane = _grid(access.threads.warp), _grid(access.threads.lane)
    rows, cols = warp.shape
    cell = max(2, min(28, max_side // max(rows, cols)))
    rgb = np.where((warp >= 0)[..., None], WARP_COLOURS[np.maximum(warp, 0) % len(WARP_COLOURS)], _GREY)
    body = np.repeat(np.repeat(rgb, cell, axis=0), cell, axis=1)
    if cell >= 6:  # a 1-pixel white line between cells
        body[::cell, :, :] = 255
        body[:, ::cell, :] = 255
    font = ImageFont.load_default()
    lines = [title or f"access #{access.index}", f"line {access.line} {access.op} {access.tensor} "
             f"{'x'.join(map(str, access.shape))} {access.dtype}: {access.layout.describe()}",
             f"colour = warp ({access.threads.n_warps} warps), number = lane; "
             f"{access.vector_bits or '?'} bits per thread per instruction"]
    top = 14 * len(lines) + 6
    img = Image.new("RGB", (max(body.shape[1], 640), body.shape[0] + top), (255, 255, 255))
    img.paste(Image.fromarray(np.ascontiguousarray(body)), (0, top))
    draw = ImageDraw.Draw(img)
    for i, text in enumerate(lines):
        draw.text((4, 2 + 14 * i), text, fill=(0, 0, 0), font=font)
    if cell >= 14:
        for r in range(rows):
            for c in range(cols):
                if lane[r, c] >= 0:
                    draw.text((c * cell + 2, top + r * cell + 2), str(int(lane[r, c])), fill=(0, 0, 0), font=font)
    return np.asarray(img), lines


def render_png(access: AccessLayout, path: str, title: str = "", max_side: int = 1024) -> None:
    from PIL import Image

    rgb, _ = render(access, title, max_side)
    Image.fromarray(rgb).save(path)
