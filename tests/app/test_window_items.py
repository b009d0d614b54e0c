"""Window items of issue #16 against a real worker (the Triton interpreter, no GPU): the Compile
tab compiling for a chosen GPU, one trace kept per kernel, the correctness legend following the
kernel shown.

The tests share one window (one worker start) and run in file order; each says what the user
would see go wrong if it failed.
"""

from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("PySide6.QtWidgets")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from real_window import make_window, pick, wait_ready, wait_until  # noqa: E402

from app.main_window import MainWindow  # noqa: E402

COMPILE_S = 120  # a first compile for a target starts Triton's compiler and ptxas: seconds here


def choose_target(qtbot, win: MainWindow, target: str) -> None:
    """Pick ``target`` in the Compile tab's combo with the keyboard (typing selects an item)."""
    combo = win.compile_view.target_combo
    combo.setFocus()
    qtbot.keyClicks(combo, target)
    assert win.compile_view.current_target() == target


def wait_compiled(win: MainWindow, target: str) -> None:
    view = win.compile_view
    wait_until(lambda: (view.facts() is not None and target in view.target_note.text())
               or view.message.text().startswith("Could not compile"), COMPILE_S, f"the compile for {target}")


@pytest.fixture(scope="module")
def win(qapp, tmp_path_factory):
    w = make_window(tmp_path_factory.mktemp("window-items"))
    w.resize(1366, 768)
    w.show()
    wait_ready(w)
    yield w
    w.close()


def test_the_compile_tab_compiles_vector_add_for_sm_90_and_sm_80_without_a_gpu(qtbot, win):
    # breaks if choosing a GPU in the Compile tab does not compile the kernel for it on this CPU
    # machine: no registers, no PTX for that architecture, no occupancy limiter
    assert win.session.kernel == "vector_add" and not win.session.gpu_available
    win.docks.compile.raise_()
    view = win.compile_view
    assert view.targets()[1:] == ["sm_80", "sm_89", "sm_90", "sm_100"]
    for target in ("sm_90", "sm_80"):
        choose_target(qtbot, win, target)
        wait_compiled(win, target)
        facts = view.facts()
        assert facts is not None, view.message.text()
        assert facts.n_regs > 0 and view.fields["regs"].text() == str(facts.n_regs)
        assert view.show_ir("ptx") and f".target {target}" in view.current_editor().toPlainText()
        assert {"ttir", "ttgir", "llir", "ptx", "sass"} <= set(view.tab_names())
        assert facts.occupancy_limiter in ("registers", "shared memory", "warps", "blocks")
        assert view.fields["limiter"].text() == facts.occupancy_limiter
        assert view.fields["per_sm"].text() == str(facts.programs_per_sm)
        assert "no GPU was involved" in view.target_note.text()
    assert win.banner.topic() != "compile"


def test_changed_values_mark_the_target_compile_stale_and_compile_updates_it(qtbot, win):
    # breaks if the tab keeps showing a compile of other values without saying so, or Compile
    # does not compile the values typed now
    view = win.compile_view
    win.panel.set_values({"BLOCK_SIZE": 256})
    assert view.target_note.text().startswith("⚠")
    qtbot.mouseClick(view.compile_button, Qt.MouseButton.LeftButton)
    wait_compiled(win, "sm_80")
    assert view.facts() is not None and not view.target_note.text().startswith("⚠")
    assert view.show_ir("ttir") and "end = 256" in view.current_editor().toPlainText()  # tl.arange(0, 256)
    win.panel.set_values({"BLOCK_SIZE": 1024})


def test_switching_back_to_a_kernel_shows_its_last_trace(qtbot, win):
    # breaks if picking another kernel and coming back throws the trace away ("No trace yet")
    win.panel.set_values({"N": 4096})
    button = win.toolbar.widgetForAction(win.trace_action)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_until(lambda: win.grid.trace() is not None and win.grid.trace().kernel == "vector_add"
               and win.grid_stack.currentWidget() is win.grid and not win.grid.is_loading(), 120, "the trace")
    traced = win.grid.trace()
    pick(qtbot, win, "vector_mul")
    assert win.grid_stack.currentWidget() is win.grid_placeholder  # vector_mul has no trace yet
    pick(qtbot, win, "vector_add")
    wait_until(lambda: win.grid_stack.currentWidget() is win.grid and not win.grid.is_loading(), 30,
               "the kept trace drawn again")
    assert win.grid.trace() is traced and win.session.trace is traced
    assert win.trace_caption.isVisible() and "vector_add" in win.trace_caption.text()
    wait_until(lambda: not win._busy_kinds(), 60, "the window to settle")


def test_the_correctness_legend_does_not_keep_the_previous_kernels_tolerance(qtbot, win):
    # breaks if, after switching kernels, the map's legend still names the last kernel's tolerance
    qtbot.mouseClick(win.toolbar.widgetForAction(win.run_action), Qt.MouseButton.LeftButton)
    wait_until(lambda: win.correctness.shown_check() is not None and not win._busy_kinds(), 120, "the run")
    scale, how = win.correctness.tolerance()
    legend = win.correctness.map_legend.text()
    assert f"({how})" in legend
    pick(qtbot, win, "vector_mul")
    assert win.correctness.shown_check() is None
    after = win.correctness.map_legend.text()
    assert f"({how})" not in after and "error ÷ tolerance," in after
    assert win.correctness.fields["tol"].text() == "—" and win.correctness.fields["tol"].toolTip() == ""
    pick(qtbot, win, "vector_add")


BROKEN_KERNEL = '''
import torch
import triton
import triton.language as tl

from kernels.data.params import block, dtype_param, num_stages, num_warps, shape
from kernels.specs.spec import KernelSpec, register


@triton.jit
def odd_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE - 1)  # not a power of 2
    mask = offs < n
    tl.store(out_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def make_inputs(cfg, device, gen):
    x = torch.randn(cfg["N"], generator=gen).to(device)
    return {"x": x, "out": torch.empty_like(x)}


def launch(K, t, cfg):
    grid = (triton.cdiv(cfg["N"], cfg["BLOCK_SIZE"]),)
    return K(odd_kernel)[grid](t["x"], t["out"], cfg["N"], BLOCK_SIZE=cfg["BLOCK_SIZE"])


register(KernelSpec(
    name="user_odd", title="Odd (user file)", summary="out = 2 x", kernels=(odd_kernel,),
    params=(block("BLOCK_SIZE", 128), num_warps(4), num_stages(3), shape("N", 500), dtype_param(("fp32",))),
    make_inputs=make_inputs, launch=launch,
    reference=lambda t, cfg: {"out": 2 * t["x"].double()},
    outputs=("out",), bytes_moved=lambda cfg: 8 * cfg["N"], flops=lambda cfg: cfg["N"],
))
'''


def test_a_compile_error_shows_one_clear_line_in_the_tab(qtbot, win, tmp_path):
    # breaks if a kernel that does not compile for the chosen GPU leaves the tab blank, spinning,
    # or showing a traceback instead of one line saying why
    f = tmp_path / "odd_kernels.py"
    f.write_text(textwrap.dedent(BROKEN_KERNEL))
    win.picker.openFileRequested.emit(str(f))
    wait_until(lambda: win.session.kernel == "user_odd", 60, "the user's kernel")
    view = win.compile_view
    assert view.current_target() == "sm_80"  # still chosen: the new kernel is compiled for it at once
    wait_until(lambda: view.message.text().startswith("Could not compile"), COMPILE_S, "the compile error")
    text = view.message.text()
    assert text.startswith("Could not compile for sm_80: ") and "\n" not in text
    assert "power of 2" in text or "arange" in text, text
    assert view.facts() is None and view.stack.currentWidget() is view.message
    assert win.banner.topic() != "compile"
    # back to the last run: the run's facts (none under the interpreter), not the error
    view.select_target("")
    assert not view.message.text().startswith("Could not compile")
