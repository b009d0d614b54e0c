"""The GUI entry point: ``python -m app`` / ``tilescope`` with no verb ends up here (``app.cli``
imports this module only then), and ``python -m app.gui`` opens the window directly."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .qt_system_libs import exit_if_missing

# before Qt is imported: without an X11 library its xcb plugin aborts naming one at a time
exit_if_missing()

from PySide6.QtWidgets import QApplication  # noqa: E402

from kernels.data.virtual_gpus import DEFAULT, ENV_VAR, VIRTUAL_GPUS, normalize  # noqa: E402
from views.i18n import install_translator  # noqa: E402

from .main_window import MainWindow  # noqa: E402
from .qt_worker import QtWorker  # noqa: E402
from .settings import Settings  # noqa: E402
from .transport_ssh import parse_remote  # noqa: E402
from .window.virtual_gpu import virtual_gpu_env  # noqa: E402

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Open the Tilescope window; returns the exit status when it closes."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="tilescope", description="Open the Tilescope window.")
    parser.add_argument("--kernel", "-k", help="kernel to show first (default: the last one used)")
    parser.add_argument("--reset-layout", action="store_true", help="ignore the saved window layout")
    parser.add_argument("--lang", metavar="LANG", default=None,
                        help="the window's language: en or zh_CN (default: the system's locale)")
    parser.add_argument("--file", "-f", metavar="PATH",
                        help="open this file: a plain Triton script (its launches captured) or a kernel file")
    parser.add_argument("--remote", metavar="USER@HOST", default=None,
                        help="run the worker on this host over ssh (host:port, or an alias of ~/.ssh/config); "
                             "default: the settings' remote field, else here")
    parser.add_argument("--remote-python", metavar="PATH", default=None,
                        help="the Python on the remote host (default: this one's path)")
    parser.add_argument("--remote-root", metavar="DIR", default=None,
                        help="Tilescope's checkout on the remote host (default: this one's path)")
    parser.add_argument("--virtual-gpu", type=_virtual_gpu, metavar="ARCH", default=None,
                        help="without a GPU, answer a script's device checks as this GPU, for this session "
                             f"({', '.join(VIRTUAL_GPUS)}; default: the settings' choice, else ${ENV_VAR}, "
                             f"else {DEFAULT})")
    args, qt_args = parser.parse_known_args(args_list)
    remote = None
    if args.remote is not None:
        try:
            remote = parse_remote(args.remote, args.remote_python or "", args.remote_root or "")
        except ValueError as e:
            parser.error(str(e))
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_args])
    app.setApplicationName("Tilescope")
    app.setOrganizationName("tilescope")
    install_translator(app, args.lang or os.environ.get("TILESCOPE_LANG"))  # before any widget is built
    settings = Settings.load()
    if args.reset_layout:
        settings.window_geometry = settings.window_state = ""
    # --remote and --virtual-gpu are this session's: the settings' own fields are left as they were
    worker = (QtWorker(timeout_s=settings.timeout_s, remote=remote, env=virtual_gpu_env(settings, args.virtual_gpu))
              if remote is not None else None)
    win = MainWindow(settings=settings, initial_kernel=args.kernel, worker=worker, virtual_gpu=args.virtual_gpu)
    win.show()
    if args.file:
        win.open_kernel_file(args.file)
    code = int(app.exec())
    win.worker.close()  # closeEvent did it, unless the loop ended another way (a signal, quit())
    # delete the window while Qt is still whole: left to the interpreter's teardown, PySide may
    # destroy the Qt objects in an order that crashes on exit
    win.deleteLater()
    app.processEvents()
    del win
    return code


def _virtual_gpu(text: str) -> str:
    try:
        return normalize(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
