"""``python -m app`` and the ``tilescope`` command: the GUI, or a headless verb (see app.cli)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tilescope`` with ``argv`` (default: sys.argv[1:]); returns the exit status."""
    from app.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
