"""Which kernel is shown, with which values: choosing one, putting a past run's or a clicked
point's values back, and the user's kernel files (loading one in the worker, what its answer
shows, what a plain script's run said). Qt-free, a part of ``app.controller``."""

from __future__ import annotations

import os
from typing import Any

from kernels.data.backends import NAMES as BACKEND_NAMES
from kernels.data.results import KernelInfo
from views.words import translate

from .events import (
    ActionsChanged,
    BackendSet,
    FileChanged,
    FileWatched,
    KernelShown,
    KernelsListed,
    SourceShown,
    ValuesSet,
)
from .request_desk import RequestDesk
from .session import format_values

__all__ = ["KernelChoice", "script_summary"]


class KernelChoice:
    def __init__(self, desk: RequestDesk) -> None:
        self.desk = desk

    def select(self, name: str, values: dict[str, Any] | None = None) -> bool:
        """Show kernel ``name`` with ``values`` (default: the values last used with it)."""
        d = self.desk
        info = d.session.infos.get(name)
        if info is None:
            return False
        old = d.session.kernel
        if old and old != name and d.window.params_shown():
            d.settings.remember(old, d.window.param_values())
        new = old != name
        d.session.select(name)
        if new:
            d.clear("run", "trace", "sweep", "point")
        d.publish(KernelShown(info, dict(values if values is not None else d.settings.values_for(name)), new))
        d.publish(FileWatched(d.session.user_file(name)))
        d.publish(ActionsChanged())
        return True

    def load_values(self, kernel: str, values: dict[str, Any], backend: str | None = None) -> bool:
        """Put a past configuration back into the parameter panel."""
        d = self.desk
        if kernel not in d.session.infos:
            d.message(translate("Controller", "The kernel {kernel} is not loaded (open its file first).")
                      .format(kernel=kernel), "warning", topic="history")
            return False
        if kernel != d.session.kernel:
            self.select(kernel, values)
        else:
            d.publish(ValuesSet(dict(values)))
        if backend in BACKEND_NAMES:
            d.publish(BackendSet(backend))
        d.clear("point")
        return True

    def reload_run(self, run_id: int) -> bool:
        """Put run ``run_id`` of the history back into the parameter panel."""
        rec = self.desk.history.get(run_id)
        return rec is not None and self.load_values(rec["kernel"], rec["values"], rec.get("backend"))

    def offer_values(self, what: str, kernel: str, values: dict[str, Any], backend: str) -> None:
        """Say which configuration a clicked point is, with a button that loads it."""
        self.desk.message(f"{what}: {kernel} — {format_values(values)} ({backend})", "info", topic="point",
                          actions=[(translate("Controller", "Load these values"),
                                    lambda: self.load_values(kernel, values, backend))])

    def load_point(self, values: dict[str, Any]) -> bool:
        """Put a clicked sweep or roofline point (every value of it) into the parameter panel;
        launch options the kernel has no parameter for are left out, and the status line says so."""
        info = self.desk.session.info()
        if info is None:
            return False
        known = {p.name for p in info.params}
        vals = {k: v for k, v in values.items() if k in known}
        if not self.load_values(info.name, vals):
            return False
        left = [k for k in values if k not in known]
        self.desk.status(translate("Controller", "loaded {values} into the parameters").format(
            values=format_values(vals)) + (f" ({', '.join(left)}: " + translate(
                "Controller", "no such parameter, not loaded") + ")" if left else ""), 10000)
        return True

    # -- kernel files --------------------------------------------------------------------------------
    def open_file(self, path: str) -> int | None:
        """Load (or reload) a user's kernel file in the worker."""
        if not path:
            return None
        self.desk.clear("file")
        return self.desk.submit("load_file", os.path.abspath(os.path.expanduser(path)),
                                translate("Controller", "loading {file}…").format(file=os.path.basename(path)),
                                busy=True)

    def file_loaded(self, payload: dict) -> None:
        d = self.desk
        infos: list[KernelInfo] = list(payload.get("infos") or [])
        loaded: list[KernelInfo] = list(payload.get("loaded") or [])
        d.session.set_infos(infos)
        d.publish(KernelsListed(tuple(infos)))
        d.publish(FileChanged(False))
        if not loaded:
            return
        d.status(translate("Controller", "loaded {names} from {file}").format(
            names=", ".join(i.name for i in loaded), file=loaded[0].origin), 10000)
        if payload.get("notes"):  # what the worker had to undo (processes the file forked)
            d.message("; ".join(payload["notes"]), "warning", topic="file")
        script = payload.get("script")
        if script is not None:  # a plain script: say what its run gave, its prints as the details
            d.message(script_summary(script), "warning" if script.error else "info",
                      details=script.log or translate("Controller", "(the script printed nothing)"), topic="file")
        cur = d.session.kernel
        if cur in {i.name for i in loaded}:
            # reloaded: the source (and maybe the parameters) changed; keep the values typed
            info = d.session.infos[cur]
            d.publish(KernelShown(info, d.window.param_values(), False))
            d.publish(SourceShown(info.source, info.source_first_line))
        else:
            self.select(loaded[0].name)
        for i in loaded:
            d.publish(FileWatched(d.session.user_file(i.name)))

    def file_failed(self, kind: str, message: str, detail: str) -> None:
        text = (translate("Controller", "Loading was cancelled: {why}") if kind == "cancelled"
                else translate("Controller", "Could not load the kernel file: {why}"))
        self.desk.message(text.format(why=message), "warning" if kind == "cancelled" else "error",
                          details=detail, topic="file")


def script_summary(script: Any) -> str:
    """One paragraph on a captured plain script: its launches, how it ended, what it printed."""
    n = len(script.launches)
    launches = ", ".join(translate("Controller", "#{i} {kernel} grid {grid}").format(
        i=r.index + 1, kernel=r.kernel, grid=chr(215).join(map(str, r.grid))) for r in script.launches)
    parts = [(translate("Controller", "Ran {file}: {n} launches captured ({launches}).") if n != 1
              else translate("Controller", "Ran {file}: {n} launch captured ({launches}).")).format(
        file=os.path.basename(script.path), n=n, launches=launches)]
    if script.stopped:
        parts.append(script.stopped[0].upper() + script.stopped[1:] + ".")
    if script.error:
        parts.append(translate("Controller", "The script raised {error}; the launches before it are kept.").format(
            error=script.error))
    parts.extend(script.notes)
    if script.log_lines:
        parts.append(translate("Controller", "It printed {n:,} line(s): see Details.").format(n=script.log_lines))
    return " ".join(parts)
