"""The GUI entry point: ``python -m app`` / ``tilescope`` with no verb ends up here.

``app.cli`` imports ``app.main_window`` and calls its ``main(argv)``; this module is the same
entry under a short name (``python -m app.gui``) for launchers and benchmarks.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Open the Tilescope window; returns the exit status when it closes."""
    from .main_window import main as window_main

    return window_main(argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
