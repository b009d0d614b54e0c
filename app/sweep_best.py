"""The "Best: …" of a finished sweep, for the window's status line (Qt-free).

Names only tuned values (``SweepResult.tuned_names``): a problem size (N, M, dtype, …) is never
among them; when the sweep varied one, each problem gets its own winner ("N=1024: BLOCK_SIZE=512;
N=4096: BLOCK_SIZE=1024"). Where the engine named no winner — a sweep over launch options on the
interpreter, where every value runs the same program — it says that instead.
"""

from __future__ import annotations

from kernels.data.results import SweepResult
from views.words import translate

from .session import format_values

__all__ = ["best_text"]


def best_text(res: SweepResult) -> str:
    """"Best: …." from the engine's ranking (winners per data group), "No winner: …" when the
    engine refused to name one, or "" when nothing passed."""
    winners = [e for e in res.ranking if e.rank == 1]
    if not winners:
        why = next((v for v in res.verdicts if v.startswith("no winner")), "")
        return translate("Controller", "No winner: {why}.").format(why=why.removeprefix("no winner: ")) if why else ""
    tuned = list(res.tuned_names)
    parts = []
    for e in winners:
        vals = res.points[e.index].values
        shown = {n: vals[n] for n in tuned if n in vals} if tuned else dict(vals)
        parts.append((f"{e.group}: " if len(winners) > 1 and e.group else "") + format_values(shown))
    return translate("Controller", "Best: {values}.").format(values="; ".join(parts))
