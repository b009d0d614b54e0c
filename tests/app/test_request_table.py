"""The request table (``kernels.data.requests``) is the one list of request kinds: each kind is
answered, accepted by the client and sent by someone; nothing outside the table is."""

from __future__ import annotations

import argparse

import pytest

from app.cli.remote import CLI_KINDS, compute
from app.client import SUBMIT_KINDS, SUPERSEDING_KINDS
from app.controller import WINDOW_KINDS
from kernels.data.requests import REQUESTS, kinds, request_kind
from kernels.data.results import RunRequest, RunResult
from kernels.engine.handlers import HANDLERS, EngineState, handle

#: sent by the client's own methods, not through submit(): cancel() and close()
CLIENT_METHOD_KINDS = {"cancel", "shutdown"}


@pytest.mark.parametrize("row", REQUESTS, ids=lambda r: r.name)
def test_every_kind_has_a_handler_a_client_entry_and_a_sender(row):
    assert (row.name in HANDLERS) != row.transport, "a queued kind needs a handler; the reader answers the others"
    assert row.name in SUBMIT_KINDS or row.name in CLIENT_METHOD_KINDS
    assert row.internal or row.name in CLI_KINDS or row.name in WINDOW_KINDS, "nobody sends it: mark it internal"


def test_nothing_is_handled_sent_or_submitted_outside_the_table():
    names = kinds()
    assert set(HANDLERS) <= names and set(SUBMIT_KINDS) <= names
    assert set(CLI_KINDS) <= names and set(WINDOW_KINDS) <= names
    assert SUPERSEDING_KINDS == {"run", "sweep", "trace"}


def test_a_payload_of_the_wrong_type_is_refused_in_one_line():
    with pytest.raises(TypeError, match="a run request carries a RunRequest, not a dict"):
        handle(EngineState(), "run", {"kernel": "vector_add"})
    with pytest.raises(KeyError, match="unknown request kind 'frobnicate'"):
        request_kind("frobnicate")


def test_the_command_line_runs_a_kind_here_through_the_same_handler():
    args = argparse.Namespace(file=None, timeout=None)
    res = compute("run", RunRequest("vector_add", {"N": 1000, "BLOCK_SIZE": 256}, backend="interpreter"), args)
    assert isinstance(res, RunResult) and res.check is not None and res.check.passed
    with pytest.raises(ValueError, match="does not send 'precompile'"):
        compute("precompile", {}, args)


def test_a_kind_added_as_a_row_and_a_handler_also_runs_in_the_worker(capsys):
    """``layout`` was added as one row and one handler: with ``--timeout`` the CLI sends it to a
    worker, which answers with the same table as the command's own process."""
    from app.cli import main

    argv = ["layout", "vector_add", "-s", "N=4096", "--target", "sm_90"]
    assert main(argv) == 0
    here = capsys.readouterr().out
    assert main([*argv, "--timeout", "300"]) == 0
    there = capsys.readouterr().out
    assert "32 req  512 sect  16.0/req" in there and there == here


def test_each_cheap_kind_answers_with_its_rows_result_type():
    """The table's result column is what the handlers give (the ones that need no GPU and no file)."""
    from kernels.data.layout import LayoutRequest
    from kernels.data.results import SweepRequest
    from kernels.data.trace import TraceRequest

    values = {"N": 4096, "BLOCK_SIZE": 1024}
    payloads = {
        "infos": None,
        "run": RunRequest("vector_add", values, backend="interpreter"),
        "trace": TraceRequest("vector_add", values, workers=1),
        "compile": {"kernel": "vector_add", "values": values, "target": "sm_90", "keep_asm": False},
        "plan_sweep": SweepRequest("vector_add", values, {"BLOCK_SIZE": [256, 512]}, backend="interpreter",
                                   mode="tune"),
        "layout": LayoutRequest("vector_add", values),
    }
    state = EngineState()
    for kind, payload in payloads.items():
        result = handle(state, kind, payload)
        assert isinstance(result, request_kind(kind).result), (kind, type(result))
        assert getattr(result, "error", None) is None, (kind, result.error)
