"""The grid view's interaction state, as a small Qt-free model with plain-callback events.

What the learner has chosen — the colour mode, the hovered and the pinned target, the loop
stepped and the step shown, playback, the z slice of a 3-D grid, and the launch order played
(programs per wave, the order, the wave shown) — lives here, validated; the
widget and its controls observe the events (as napari's ``_qt`` widgets observe
``components``), so a change made by a control, a method call or the play timer is drawn the
same way. Targets are ``lighting.Target`` tuples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .lighting import Target
from .prepare import COLOR_MODES

__all__ = ["Event", "GridEvents", "GridState"]


class Event:
    """A list of callbacks, called in order by ``emit``."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        for cb in list(self._callbacks):
            cb(*args)


class GridEvents:
    """``mode(str)``, ``hover(old, new)``, ``pinned(bool)``, ``loop(int)``, ``step(int | None)``,
    ``playing(bool)``, ``z(int)``, ``wave(int | None)``, ``waves()`` (programs per wave or the
    launch order changed)."""

    def __init__(self) -> None:
        self.mode = Event()
        self.hover = Event()
        self.pinned = Event()
        self.loop = Event()
        self.step = Event()
        self.playing = Event()
        self.z = Event()
        self.wave = Event()
        self.waves = Event()


class GridState:
    """Selection, loop step, playback, z slice and colour mode of one grid view."""

    def __init__(self) -> None:
        self.events = GridEvents()
        self.mode = "auto"  # resolved per trace (prepare.resolve_mode)
        self.hover: Target | None = None
        self.pinned: Target | None = None
        self.loop_steps: list[int] = []  # iterations of each loop of the trace
        self.loop = 0  # the loop the slider steps (a column of AccessTable.iters)
        self.step: int | None = None  # the iteration shown; None: all of them
        self.playing = False
        self.z = 0
        self.n_z = 1  # z slices of the grid
        self.wave: int | None = None  # the wave of the launch order shown; None: not shown
        self.n_waves = 0
        self.per_wave = 0  # programs that run at once (0: the trace's SMs × programs per SM)
        self.order = "recorded"  # the launch order played: "recorded" or "row-major"

    # ------------------------------------------------------------------ a new trace
    def reset(self, loop_steps: list[int], n_z: int) -> None:
        """A new trace: nothing selected, its first loop, all iterations, slice 0, not playing.
        No events: the widget redraws everything for a new trace anyway."""
        self.hover = self.pinned = None
        self.loop_steps = list(loop_steps)
        self.loop = 0
        self.step = None
        self.playing = False
        self.z = 0
        self.n_z = max(1, int(n_z))
        if self.wave is not None:
            self.wave = 0

    @property
    def n_steps(self) -> int:
        """Iterations of the loop stepped (0 when the kernel has no loop)."""
        return self.loop_steps[self.loop] if self.loop < len(self.loop_steps) else 0

    # ------------------------------------------------------------------ selection
    @property
    def selection(self) -> Target | None:
        """What is lit: the pinned target, else the hovered one."""
        return self.pinned if self.pinned is not None else self.hover

    def selected_program(self) -> int | None:
        sel = self.selection
        return sel[1] if sel is not None and sel[0] == "program" else None

    def set_hover(self, target: Target | None) -> None:
        old = self.hover
        if target == old:
            return
        self.hover = target
        self.events.hover.emit(old, target)

    def pin(self) -> bool:
        """Pin the hovered target; False when nothing is hovered."""
        if self.hover is None:
            return False
        self.pinned = self.hover
        self.events.pinned.emit(True)
        return True

    def pin_target(self, target: Target) -> None:
        """Hover and pin ``target`` at once (a click on an entry of the out-of-bounds list)."""
        self.hover = self.pinned = target
        self.events.pinned.emit(True)

    def unpin(self) -> None:
        if self.pinned is None:
            return
        self.pinned = None
        self.events.pinned.emit(False)

    # ------------------------------------------------------------------ loops and playback
    def set_loop(self, index: int) -> None:
        """Step loop ``index`` (source order), from all iterations."""
        if not 0 <= index < len(self.loop_steps):
            raise ValueError(f"no loop {index}; the kernel has {len(self.loop_steps)}")
        self.loop = int(index)
        self.step = None
        self.events.loop.emit(self.loop)

    def set_step(self, step: int | None) -> None:
        """Show loop iteration ``step`` only (None or -1: all iterations)."""
        if step is not None and step < 0:
            step = None
        if step is not None and not 0 <= step < self.n_steps:
            raise ValueError(f"loop step {step} outside 0..{self.n_steps - 1}")
        self.step = step
        self.events.step.emit(step)

    def advance(self) -> None:
        """The next step of playback, wrapping around; a loop of no steps stops playing."""
        if not self.n_steps:
            self.set_playing(False)
            return
        self.set_step(0 if self.step is None else (self.step + 1) % self.n_steps)

    def set_playing(self, on: bool) -> None:
        self.playing = bool(on)
        self.events.playing.emit(self.playing)

    # ------------------------------------------------------------------ slice and colours
    def set_z(self, z: int) -> None:
        self.z = min(max(int(z), 0), self.n_z - 1)
        self.events.z.emit(self.z)

    def set_mode(self, mode: str) -> None:
        if mode not in COLOR_MODES:
            raise ValueError(f"unknown colour mode {mode!r}; one of {', '.join(COLOR_MODES)}")
        self.mode = mode
        self.events.mode.emit(mode)

    # ------------------------------------------------------------------ the launch order
    def set_waves(self, per_wave: int | None = None, order: str | None = None) -> None:
        """Programs that run at once (``per_wave``: SMs × programs per SM) and the launch order
        played (``"recorded"``: the kernel's own; ``"row-major"``: by output tile, row by row)."""
        if per_wave is not None:
            if int(per_wave) < 1:
                raise ValueError(f"a wave holds at least one program, not {per_wave}")
            self.per_wave = int(per_wave)
        if order is not None:
            if order not in ("recorded", "row-major"):
                raise ValueError(f"unknown launch order {order!r}; recorded or row-major")
            self.order = order
        self.events.waves.emit()

    def set_wave(self, wave: int | None) -> None:
        """Show wave ``wave`` of the launch order (None: the launch order is not shown)."""
        if wave is not None and not 0 <= wave < max(self.n_waves, 1):
            raise ValueError(f"wave {wave} outside 0..{max(self.n_waves, 1) - 1}")
        self.wave = wave
        self.events.wave.emit(wave)

    def advance_wave(self) -> None:
        """The next wave of playback, wrapping around."""
        self.set_wave(0 if self.wave is None or self.n_waves == 0 else (self.wave + 1) % self.n_waves)
