"""Fault injection by hypothesis: command lines and parameter text nobody would type on purpose
(huge numbers, unicode digits and letters, float-looking text, negative numbers, NaN and
infinities, empty strings, option soup), through ``tilescope`` in this process (catalog kernels
only: no user file, so no worker) and through the window's parameter panel.

Each example: the CLI returns 0, 1 or 2 — never raises — and every failure is exactly one line
starting ``error:``; the panel either accepts the value or marks the field, never raises; and
after the examples a valid request still works.

If these fail: some input reaches Python's int-parsing limit, a numpy overflow or an argparse
corner and the user sees a traceback instead of one line naming what is wrong.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import kernels.engine  # noqa: F401  (the in-process runs load torch here, not inside an example)
from app.cli import main
from kernels.data.params import ValidationError, parse_value
from kernels.specs.spec import REGISTRY

MAX_EXAMPLES = 60
_SETTINGS = settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

#: text a parameter field or option may receive
HOSTILE_TEXT = st.one_of(
    st.integers(min_value=-(10**6), max_value=4096).map(str),
    st.integers(min_value=2**40, max_value=2**70).map(str),
    st.integers(min_value=41, max_value=6000).map(lambda n: "9" * n),  # past the 40-character refusal
    st.integers(min_value=4300, max_value=5000).map(lambda n: "1" + "0" * n),  # Python's int limit
    st.sampled_from(["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1e3", "2.5", "1e-3", "0x10", "0b101",
                     "2**70", "2**-1", "2**64", "1_000", "", " ", "٣٢", "٩" * 50, "１２８", "²", "½", "∞",
                     "0" * 39 + "1", "-0", "+128", "128.0", "1e2.5", "𝟙𝟚𝟠", "\x00", "12\n8", "None", "True"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(min_size=1, max_size=12),
)


def _slow_if_valid(text: str, name: str = "N") -> bool:
    """A size that parses to a value the interpreter would run for long (refused values are
    fast, and tiny ones too)."""
    try:
        v = parse_value(REGISTRY.get("vector_add").param(name), text)
    except (ValidationError, Exception):  # noqa: BLE001 — any refusal is fast
        return False
    return isinstance(v, int) and 1 << 16 < v < 1 << 42


def _one_line(code: int, err: str) -> None:
    assert code in (0, 1, 2), code
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("\r")]
    if code != 0:
        errs = [ln for ln in lines if ln.startswith("error:")]
        assert len(errs) == 1, err[-2000:]
        # an input the user can fix is named as such, never an engine bug ("internal error …")
        assert "internal error" not in errs[0] and "failed inside the worker" not in errs[0], errs[0]
    assert "Traceback" not in err, err[-3000:]


@_SETTINGS
@given(n=HOSTILE_TEXT, block=HOSTILE_TEXT)
def test_any_size_and_block_text_on_the_command_line(n, block, capsys):
    assume(not _slow_if_valid(n) and "\x00" not in n + block)
    code = main(["run", "vector_add", "-b", "interpreter", "--no-bench", "--no-torch",
                 "-s", f"N={n}", "-p", f"BLOCK_SIZE={block}"])
    _one_line(code, capsys.readouterr().err)


_OPTIONS = ["--param", "-p", "--shape", "-s", "--num-warps", "--num-stages", "--dtype", "--seed", "--timeout",
            "--window", "--n-sms", "--programs-per-sm", "--workers", "--launch", "--json", "--no-bench",
            "--backend", "--file", "--wave", "--max-oob", "-v"]
_VALUES = st.one_of(HOSTILE_TEXT, st.sampled_from(["N=1000", "BLOCK_SIZE=64", "N=2**70", "BLOCK_SIZE=nan",
                                                   "interpreter", "gpu", "0:4", "0:1,0:1", "4:2", "fp16",
                                                   "/no/such/file.py", "x=1=2", "=", "N="]))


@_SETTINGS
@given(verb=st.sampled_from(["run", "trace", "list", "sweep", "open", "bench", "frobnicate"]),
       tokens=st.lists(st.one_of(st.sampled_from(_OPTIONS), _VALUES), max_size=8))
def test_any_option_soup_is_one_error_line_or_a_result(verb, tokens, capsys):
    argv = [verb, *tokens]
    text = " ".join(argv)
    # keep examples quick: no sweep or bench that would really run, no real worker start
    assume("\x00" not in text and not any(_slow_if_valid(t.split("=", 1)[-1]) for t in tokens))
    if verb in ("sweep", "bench") and "--file" not in tokens:
        argv = [*argv, "--file", "/no/such/file.py"]
    if "--timeout" in tokens:
        i = tokens.index("--timeout")
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        try:
            ok = math.isfinite(float(nxt)) and float(nxt) > 0
        except ValueError:
            ok = False
        assume(not ok)  # a valid timeout starts a worker: covered elsewhere
    if verb in ("run", "trace") and not any(t in ("--file", "-p", "--param", "-s", "--shape") for t in tokens):
        argv = [*argv, "-s", "N=100"]
    code = main(argv)
    _one_line(code, capsys.readouterr().err)


_COUNTS = st.one_of(st.integers(min_value=2**32, max_value=2**80).map(str), HOSTILE_TEXT)


@_SETTINGS
@given(window=st.one_of(st.none(), st.sampled_from(["0:2", "0:1,0:1", "1:3", "0:0", "3:1", "0:99"]), HOSTILE_TEXT),
       n_sms=_COUNTS, pps=_COUNTS, workers=st.sampled_from(["1", "2", "0", "-1", "10**6", "1" * 50, "100000"]))
@example(window=None, n_sms="99999999999999999999", pps="99999999999", workers="1")  # was: OverflowError inside
def test_trace_options_never_overflow(window, n_sms, pps, workers, capsys):
    assume("\x00" not in (window or "") + n_sms + pps)
    argv = ["trace", "vector_add", "-s", "N=256", "-p", "BLOCK_SIZE=64", "--n-sms", n_sms,
            "--programs-per-sm", pps, "--workers", workers]
    code = main(argv + (["--window", window] if window is not None else []))
    _one_line(code, capsys.readouterr().err)


def test_a_valid_run_works_after_the_examples(capsys):
    assert main(["run", "vector_add", "-b", "interpreter", "--no-torch", "-s", "N=1000"]) == 0
    assert "PASS" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# the window's parameter panel


@pytest.fixture(scope="module")
def panel(qapp):
    from views.param_panel import ParamPanel

    p = ParamPanel()
    info = REGISTRY.get("vector_add").info()
    p.set_kernel(info, {})
    yield p
    p.deleteLater()


@_SETTINGS
@given(name=st.sampled_from(["N", "BLOCK_SIZE", "num_warps", "num_stages"]), text=HOSTILE_TEXT)
def test_any_text_in_a_panel_field_is_accepted_or_marked(panel, name, text):
    panel.set_values({name: text})
    if panel.is_valid():
        assert name not in panel.errors()
    else:
        assert panel.errors()
    panel.set_values({"N": "1000", "BLOCK_SIZE": "256", "num_warps": "4", "num_stages": "3"})
    assert panel.is_valid(), panel.errors()
