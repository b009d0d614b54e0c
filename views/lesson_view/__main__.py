"""``python -m views.lesson_view``: the Lessons panel alone, with a stand-in for the app's worker.

The stand-in runs ``kernels.lessons.check_lesson`` in a ``QThread`` of this process — a preview
convenience only: the app runs checks in its worker process, and the panel itself never imports
torch or triton. "Show in grid" opens a grid view window.

Options: ``--lang en|zh_CN|auto`` (the translator and the lesson texts), ``--lesson N``,
``--work DIR`` (the learner's files and the progress; default: a new temporary folder).
``--grab FILE.png --file starter|solution [--hints N]`` checks that version of the lesson's file
(after showing N hints), saves a 1366×768 picture of the panel once the result is shown, and
quits. The screenshots in docs/screenshots were made this way, one work folder per language,
lessons in order (so the list shows the progress so far)::

    QT_QPA_PLATFORM=offscreen python -m views.lesson_view --lang zh_CN --work /tmp/zh --lesson 1 \
        --file starter --hints 1 --grab docs/screenshots/lesson_1_zh_CN_failing.png
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QThread, QTimer, Signal
from PySide6.QtWidgets import QApplication

from kernels.data.lessons.texts import lesson_info, solution_text, starter_text
from views.i18n import install_translator
from views.lesson_view import LessonView


class CheckThread(QThread):
    """Runs one check off the GUI thread: ``done(LessonResult)`` or ``failed(str)``."""

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, name: str, path: str, lang: str) -> None:
        super().__init__()
        self._args = (name, path, lang)

    def run(self) -> None:  # pragma: no cover - runs kernels
        try:
            # imported by name, at run time: the engine (torch, triton) stays out of the views'
            # import graph, which the layer contract checks statically
            lessons = importlib.import_module("kernels.lessons")
            self.done.emit(lessons.check_lesson(*self._args))
        except Exception as exc:  # the preview shows any failure in the panel
            self.failed.emit(f"{type(exc).__name__}: {exc}")


def _wire(view: LessonView, keep: list) -> None:  # pragma: no cover - manual preview
    def check(name: str, path: str, lang: str) -> None:
        t = CheckThread(name, path, lang)
        t.done.connect(view.show_result)
        t.failed.connect(view.show_check_error)
        keep.append(t)
        t.start()

    def show_in_grid(trace: object) -> None:
        from views.grid_view import GridView

        grid = GridView()
        grid.setWindowTitle(f"Tilescope — {view.current_lesson()}")
        grid.resize(1000, 800)
        grid.set_trace(trace)
        grid.show()
        keep.append(grid)

    view.checkRequested.connect(check)
    view.showInGridRequested.connect(show_in_grid)


def _grab_when_done(view: LessonView, out: Path, app: QApplication) -> None:  # pragma: no cover
    def grab(*_: object) -> None:
        QTimer.singleShot(300, lambda: (view.grab().save(str(out)), print(out), app.quit()))

    view.progressChanged.connect(grab)
    view.request_check()


def _show_line_to_fix(view: LessonView, starter: str, solution: str) -> None:  # pragma: no cover
    """Put the editor's cursor on the first line where the starter and the solution differ."""
    pairs = zip(starter.splitlines(), solution.splitlines(), strict=False)
    line = next((i for i, (a, b) in enumerate(pairs) if a != b), 0)
    ed = view.editor.editor()
    cur = ed.textCursor()
    cur.setPosition(ed.document().findBlockByNumber(line).position())
    ed.setTextCursor(cur)
    ed.centerCursor()


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - manual preview
    ap = argparse.ArgumentParser(prog="python -m views.lesson_view")
    ap.add_argument("--lang", default="auto")
    ap.add_argument("--lesson", default="")
    ap.add_argument("--work", default="")
    ap.add_argument("--grab", default="", help="save a picture of the panel after checking, then quit")
    ap.add_argument("--file", choices=("starter", "solution"), default="starter")
    ap.add_argument("--hints", type=int, default=0, help="with --grab: show this many hints first")
    args = ap.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    lang = install_translator(app, args.lang)
    work = Path(args.work or tempfile.mkdtemp(prefix="tilescope-lessons-"))
    print(f"lesson files and progress in {work}", file=sys.stderr)
    view = LessonView(work / "lessons", work, lang)
    view.setWindowTitle("Tilescope — " + QCoreApplication.translate("LessonView", "Lessons"))
    keep: list = []
    _wire(view, keep)
    if args.lesson:
        view.select_lesson(lesson_info(args.lesson).name)
    view.resize(1366, 768)
    view.show()
    if args.grab:
        name = view.current_lesson()
        view.editor.set_text(solution_text(name, lang) if args.file == "solution" else starter_text(name, lang))
        while view.hints_shown() < args.hints and view.hint_button.isEnabled():
            view.next_hint()
        app.processEvents()  # laid out: the editor knows its height before centring a line
        _show_line_to_fix(view, starter_text(name, lang), solution_text(name, lang))
        _grab_when_done(view, Path(args.grab), app)
    code = app.exec()
    for t in keep:
        if isinstance(t, QThread):
            t.wait()
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
