"""The worker pipe's framing: if these fail, the GUI and the worker stop understanding each other."""

from __future__ import annotations

import io
import os
import pickle
import struct
import subprocess
import sys
import threading

import numpy as np
import pytest

from app.protocol import (
    PayloadError,
    ProtocolError,
    Reply,
    Request,
    decode,
    encode,
    read_frame,
    write_frame,
)
from kernels.data.results import CheckResult, ErrorInfo, Progress, RunRequest


def _check(n: int = 1000) -> CheckResult:
    em = np.linspace(0, 1, n, dtype=np.float32)
    return CheckResult(True, "out", "fp32", 1e-7, 2e-8, 1e-4, 1e-4, n, 0, 0, 0, 0, error_map=em)


def _body(obj: object) -> bytes:
    """A frame body written by hand: an in-band pickle and a trailer naming no buffers."""
    p = pickle.dumps(obj, protocol=5)
    return p + struct.pack(">QI4s", len(p), 0, b"TSB1")


class _Trickle(io.RawIOBase):
    """A stream that hands out at most ``k`` bytes per read, like a pipe under load."""

    def __init__(self, data: bytes, k: int) -> None:
        self._data, self._pos, self._k = data, 0, k

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # noqa: ANN001 (a writable buffer); read() derives from it
        out = self._data[self._pos: self._pos + min(len(b), self._k)]
        b[: len(out)] = out
        self._pos += len(out)
        return len(out)


def test_round_trip_keeps_dataclasses_and_arrays():
    req = Request(7, 7, "run", RunRequest("vector_add", {"N": 4096, "dtype": "fp16"}, backend="interpreter"))
    rep = Reply(7, 7, "result", _check())
    for msg in (req, rep):
        frame = encode(msg)
        assert struct.unpack(">I", frame[:4])[0] == len(frame) - 4  # the header is the body length
        back = read_frame(io.BytesIO(frame))
        assert type(back) is type(msg) and back.id == 7 and back.kind == msg.kind
    assert back.payload.error_map.dtype == np.float32
    np.testing.assert_array_equal(back.payload.error_map, rep.payload.error_map)
    assert read_frame(io.BytesIO(encode(req))).payload.values == {"N": 4096, "dtype": "fp16"}


def test_partial_reads_reassemble_frames():
    msgs = ([Reply(i, i, "progress", Progress("tracing", i / 10, i, 10, "programs")) for i in range(5)]
            + [Reply(9, 9, "result", _check(5000))])
    data = b"".join(encode(m) for m in msgs)
    # a blocking reader that gets 3 bytes at a time
    stream = _Trickle(data, 3)
    got = []
    while (m := read_frame(stream)) is not None:
        got.append(m)
    assert [m.id for m in got] == [0, 1, 2, 3, 4, 9]
    assert got[2].payload == Progress("tracing", 0.2, 2, 10, "programs")
    assert got[2].payload.text() == "tracing 2/10 programs"
    np.testing.assert_array_equal(got[-1].payload.error_map, msgs[-1].payload.error_map)


def test_stream_ending_inside_a_frame_is_an_error_not_a_hang():
    frame = encode(Reply(1, 1, "result", "x" * 100))
    assert read_frame(io.BytesIO(b"")) is None  # a clean end between frames
    with pytest.raises(ProtocolError, match="header"):
        read_frame(io.BytesIO(frame[:2]))
    with pytest.raises(ProtocolError, match="ended inside a frame"):
        read_frame(io.BytesIO(frame[:-10]))


def test_stray_text_on_the_pipe_is_reported_at_once():
    # "Hello world" read as a header would mean a 1.2 GB frame; it must fail on the next bytes
    stream = io.BytesIO(b"Hello world from a print()\n" + encode(Reply(1, 1, "log", "x")))
    with pytest.raises(ProtocolError, match="not a protocol-5 pickle"):
        read_frame(stream)


def test_corrupt_body_and_wrong_objects_are_rejected():
    frame = bytearray(encode(Reply(3, 3, "result", {"a": list(range(50))})))
    frame[20:40] = b"\xff" * 20
    with pytest.raises(ProtocolError, match="corrupt frame"):
        read_frame(io.BytesIO(bytes(frame)))
    with pytest.raises(ProtocolError, match="too small"):
        read_frame(io.BytesIO(struct.pack(">I", 1) + b"\x80"))
    with pytest.raises(ProtocolError, match="not a Request or Reply"):
        decode(_body({"id": 1}))
    # a body whose trailer is missing or points outside it
    with pytest.raises(ProtocolError, match="trailer"):
        decode(pickle.dumps(Reply(1, 1, "log", "x"), protocol=5))
    body = bytearray(encode(Reply(1, 1, "result", np.arange(100)))[4:])
    struct.pack_into(">QQ", body, len(body) - 16 - 16, 8, 10**9)  # buffer 0: a billion bytes
    with pytest.raises(ProtocolError, match="outside"):
        decode(body)


def test_arrays_arrive_as_aligned_writable_views_of_the_body():
    """Decoding copies no array data (a copy under the GIL stalled the GUI thread 36-45 ms for a
    4096-program trace): every array is a view of the frame body, aligned for numpy, writable."""
    arrays = {"a": np.arange(1001, dtype=np.int32), "b": np.linspace(0, 1, 77, dtype=np.float64),
              "c": np.zeros((3, 5), dtype=np.uint8)}
    body = bytearray(encode(Reply(1, 1, "result", arrays))[4:])
    got = decode(body).payload
    base = np.frombuffer(body, dtype=np.uint8)
    for k, a in arrays.items():
        np.testing.assert_array_equal(got[k], a)
        assert np.shares_memory(got[k], base), k  # a view, not a copy
        assert got[k].flags.aligned and got[k].flags.writeable, k
        assert got[k].ctypes.data % 16 == 0, k
    got["a"][0] = 5  # and the views are independent of each other
    assert got["b"][0] == 0 and got["a"][0] == 5
    # a read-only body (bytes) still gives writable arrays (copied once)
    assert decode(bytes(body)).payload["a"].flags.writeable


def test_torch_objects_cannot_cross_the_pipe():
    """A result holding a torch object would import torch in the GUI process when unpickled."""

    class FakeDtype:  # pickled by reference to a class in a module named torch
        pass

    FakeDtype.__module__ = "torch"
    FakeDtype.__qualname__ = "FakeDtype"
    with pytest.raises(PayloadError, match="torch.FakeDtype"):
        encode(Reply(1, 1, "result", {"dtype": FakeDtype()}))
    # and a frame that refers to torch anyway is refused on the reading side, stream kept in step
    body = _body(Reply(1, 1, "result", ErrorInfo("x", "y")))
    body = body.replace(b"kernels.data.results", b"torch.data.results__")  # same length: still a pickle
    frame = struct.pack(">I", len(body)) + body
    stream = io.BytesIO(frame + encode(Reply(2, 2, "log", "ok")))
    with pytest.raises(PayloadError, match="torch"):
        read_frame(stream)
    assert read_frame(stream).payload == "ok"  # the stream is still in step
    with pytest.raises(PayloadError, match="cannot send"):
        encode(Reply(1, 1, "result", threading.Lock()))


def test_frames_through_a_real_pipe_between_processes():
    """A large frame crosses an OS pipe (short reads and writes) intact."""
    big = np.arange(3_000_000, dtype=np.int64)  # 24 MB: many pipe buffers
    code = (
        "import sys, numpy as np\n"
        "from app.protocol import Reply, write_frame\n"
        "write_frame(sys.stdout.buffer, Reply(5, 5, 'result', np.arange(3_000_000, dtype=np.int64)))\n"
        "write_frame(sys.stdout.fileno(), Reply(6, 6, 'log', 'done'))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    # unbuffered: the reader sees the pipe's short reads as they come
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env, bufsize=0)
    first = read_frame(proc.stdout)
    second = read_frame(proc.stdout)
    assert read_frame(proc.stdout) is None
    assert proc.wait(timeout=30) == 0
    np.testing.assert_array_equal(first.payload, big)
    assert (second.id, second.payload) == (6, "done")


def test_write_frame_to_file_descriptor():
    r, w = os.pipe()
    try:
        write_frame(w, Request(1, 1, "ping"))
        os.close(w)
        w = -1
        assert read_frame(r).kind == "ping"
        assert read_frame(r) is None
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)
