"""The framed protocol between the GUI process and the worker child.

A frame is a 4-byte big-endian length followed by that many bytes of body: a pickle (protocol 5)
of a ``Request`` (parent -> worker, over the child's stdin) or a ``Reply`` (worker -> parent, over
the child's stdout), then the pickle's out-of-band buffers, then a table of where they lie.
Payloads are the plain dataclasses of ``kernels.data.results`` / ``kernels.data.trace`` (numpy arrays
inside are fine); a ``progress`` reply carries a ``kernels.data.results.Progress`` (stage,
fraction, done of total).

Why out-of-band: the array data of a message (a trace is tens of megabytes of arrays) travels
after the pickle, each buffer aligned to 64 bytes, and decoding makes the arrays *views* of the
received body instead of copying them. An in-band pickle of a trace keeps the unpickler busy for
long stretches, all of it holding the GIL, so the GUI thread, which needs the GIL for every event,
stands still meanwhile; out of band the decode is a small fraction of that (figures:
docs/benchmarks/gui.md and transport.md). Body layout::

    pickle (starts b"\x80\x05") | padding | buffer 0 | padding | buffer 1 | ...
    | table: (offset, length) as two big-endian uint64 per buffer
    | trailer: pickle length (uint64), buffer count (uint32), b"TSB1"

Two guards keep the GUI process free of torch and triton and the stream honest:

- ``encode`` refuses a payload holding a torch or triton object (say a ``torch.dtype`` left in a
  result), naming it — unpickling it in the GUI would import torch there;
- ``decode`` refuses such references too, and anything that is not a ``Request``/``Reply``;
  a frame whose body does not start like a protocol-5 pickle is rejected as soon as its first two
  bytes arrive, so stray text on the pipe (a ``print`` that escaped) is reported at once rather
  than read as a gigantic length and waited on.

No torch, no triton, no Qt.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
from dataclasses import dataclass
from typing import Any, BinaryIO, Union

__all__ = [
    "FORBIDDEN_MODULES",
    "MAX_FRAME",
    "REPLY_KINDS",
    "Message",
    "PayloadError",
    "ProtocolError",
    "Reply",
    "Request",
    "decode",
    "encode",
    "read_frame",
    "write_frame",
]

REPLY_KINDS = ("progress", "point", "result", "error", "log")

#: the largest body a frame may carry (the 4-byte length allows up to 4 GiB - 1)
MAX_FRAME = (1 << 32) - 1
#: modules whose objects must never cross the pipe: the GUI process must not import them
FORBIDDEN_MODULES = ("torch", "triton")

_HEADER = struct.Struct(">I")
_PICKLE_START = pickle.PROTO + bytes((5,))  # b"\x80\x05": every protocol-5 pickle starts so
_TRAILER = struct.Struct(">QI4s")  # pickle length, buffer count, magic
_MAGIC = b"TSB1"
_ENTRY = struct.Struct(">QQ")  # a buffer's offset in the body, its length
_ALIGN = 64  # buffers start at multiples of this in the body (numpy wants aligned data)


@dataclass
class Request:
    """Parent -> worker. ``id`` identifies the request in replies; ``generation`` orders them."""

    id: int
    generation: int
    kind: str  # a row of kernels.data.requests (the worker answers any other with an error)
    payload: Any = None


@dataclass
class Reply:
    """Worker -> parent. ``id``/``generation`` are those of the request answered."""

    id: int
    generation: int
    kind: str  # one of REPLY_KINDS
    payload: Any = None


Message = Union[Request, Reply]


class ProtocolError(Exception):
    """The byte stream is broken (truncated or corrupt frame): the connection cannot go on."""


class PayloadError(ProtocolError):
    """One message could not be encoded or decoded, but the stream itself is intact."""


# ---------------------------------------------------------------------------------------------
# encoding


def _forbidden(module: str | None) -> bool:
    if not module:
        return False
    root = module.split(".", 1)[0]
    return root in FORBIDDEN_MODULES


class _GuardedPickler(pickle.Pickler):
    """Refuses torch/triton objects, naming the first one met (cheap: not called for builtins)."""

    def reducer_override(self, obj: Any) -> Any:
        mod = getattr(obj, "__module__", None) if isinstance(obj, type) or callable(obj) else None
        tmod = type(obj).__module__
        if _forbidden(tmod) and not isinstance(obj, type):
            # a str/int/float subclass (torch.__version__ is a TorchVersion) travels as its value
            for base in (str, int, float):
                if isinstance(obj, base):
                    return base, (base(obj),)
        if _forbidden(tmod) or (isinstance(mod, str) and _forbidden(mod)):
            what = f"{tmod}.{type(obj).__qualname__}" if _forbidden(tmod) else f"{mod}.{obj!r}"
            raise PayloadError(
                f"the message holds a {what} object ({obj!r:.80}); only plain data "
                "(numbers, strings, numpy arrays, dataclasses of kernels.data.results) may cross the pipe"
            )
        return NotImplemented


def encode(msg: Message) -> bytes:
    """One frame: length header + pickle. Raises PayloadError for unpicklable or torch payloads."""
    if not isinstance(msg, (Request, Reply)):
        raise PayloadError(f"only Request/Reply can be sent, not {type(msg).__name__}")
    buf = io.BytesIO()
    buf.write(b"\0\0\0\0")
    buffers: list[pickle.PickleBuffer] = []
    try:
        _GuardedPickler(buf, protocol=5, buffer_callback=buffers.append).dump(msg)
    except PayloadError:
        raise
    except Exception as e:  # PicklingError, TypeError ("cannot pickle '_thread.lock'"), ...
        raise PayloadError(f"cannot send {msg.kind!r} message: {type(e).__name__}: {e}") from e
    pickle_len = buf.tell() - _HEADER.size
    table = []
    for b in buffers:
        with b.raw() as raw:  # contiguous bytes (numpy only sends contiguous arrays out of band)
            pad = -(buf.tell() - _HEADER.size) % _ALIGN
            buf.write(bytes(pad))
            table.append((buf.tell() - _HEADER.size, raw.nbytes))
            buf.write(raw)
    for entry in table:
        buf.write(_ENTRY.pack(*entry))
    buf.write(_TRAILER.pack(pickle_len, len(table), _MAGIC))
    n = buf.tell() - _HEADER.size
    if n > MAX_FRAME:
        raise PayloadError(f"{msg.kind!r} message is {n} bytes, above the frame limit {MAX_FRAME}")
    view = buf.getbuffer()
    _HEADER.pack_into(view, 0, n)
    del view
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------
# decoding


class _GuardedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if _forbidden(module):
            raise PayloadError(
                f"message refers to {module}.{name}; the worker must send plain data, "
                "and this process must not import torch or triton"
            )
        return super().find_class(module, name)


def _split_body(body: memoryview) -> tuple[memoryview, list[memoryview]]:
    """The pickle and the out-of-band buffers of a body (views, no copies)."""
    n = body.nbytes
    if n < _TRAILER.size:
        raise ProtocolError(f"corrupt frame: {n} bytes is too short for a body")
    pickle_len, count, magic = _TRAILER.unpack_from(body, n - _TRAILER.size)
    table_at = n - _TRAILER.size - count * _ENTRY.size
    if magic != _MAGIC or table_at < pickle_len or pickle_len < 2:
        raise ProtocolError(f"corrupt frame ({n} bytes): its trailer does not describe it")
    buffers = []
    end = pickle_len
    for k in range(count):
        off, length = _ENTRY.unpack_from(body, table_at + k * _ENTRY.size)
        if off < end or off + length > table_at:
            raise ProtocolError(f"corrupt frame ({n} bytes): buffer {k} lies outside its body")
        buffers.append(body[off: off + length])
        end = off + length
    return body[:pickle_len], buffers


def decode(body: bytes | bytearray | memoryview) -> Message:
    """The message in one frame body (without its header).

    The arrays in the message are views of ``body``: pass a writable buffer (a ``bytearray``,
    as ``read_frame`` does) for writable arrays; a read-only one is copied once first."""
    if bytes(body[:2]) != _PICKLE_START:
        raise ProtocolError(f"corrupt frame: body starts with {bytes(body[:8])!r}, not a protocol-5 pickle")
    view = memoryview(body)
    if view.readonly:
        view = memoryview(bytearray(view))
    head, buffers = _split_body(view.cast("B"))
    try:
        msg = _GuardedUnpickler(io.BytesIO(head), buffers=buffers).load()
    except PayloadError:
        raise
    except (pickle.UnpicklingError, EOFError, ValueError) as e:
        raise ProtocolError(f"corrupt frame ({len(body)} bytes): {type(e).__name__}: {e}") from e
    except (AttributeError, ImportError, ModuleNotFoundError, TypeError) as e:
        # well formed, but naming a class this process does not have (version skew)
        raise PayloadError(f"cannot decode message: {type(e).__name__}: {e}") from e
    if not isinstance(msg, (Request, Reply)):
        raise ProtocolError(f"frame holds a {type(msg).__name__}, not a Request or Reply")
    return msg


def _check_length(n: int) -> None:
    if n < 2:
        raise ProtocolError(f"corrupt frame: length {n} is too small for a pickle")


def _check_start(first: bytes) -> None:
    if first != _PICKLE_START[: len(first)]:
        raise ProtocolError(
            f"corrupt frame: body starts with {first!r}, not a protocol-5 pickle "
            "(stray output on the pipe?)"
        )


# ---------------------------------------------------------------------------------------------
# blocking streams


def _read_exact_into(stream: BinaryIO | int, view: memoryview) -> int:
    """Fill ``view`` from the stream, looping over short reads; returns the bytes read (fewer
    than asked only at end of stream). Read in place: a 19 MB body is not copied after the pipe."""
    got, n = 0, view.nbytes
    while got < n:
        if isinstance(stream, int):
            k = os.readv(stream, [view[got: got + (1 << 20)]])
        else:
            k = stream.readinto(view[got:])  # pipes, files, BytesIO: every binary stream has it
        if not k:
            break
        got += k
    return got


def _read_exact(stream: BinaryIO | int, n: int) -> bytes:
    out = bytearray(n)
    got = _read_exact_into(stream, memoryview(out))
    return bytes(out[:got])


def read_frame(stream: BinaryIO | int) -> Message | None:
    """Block for one message from a binary stream or file descriptor.

    Returns None at a clean end of stream (between frames); raises ProtocolError when the stream
    ends inside a frame or the frame is corrupt, PayloadError when one message cannot be decoded.
    """
    head = _read_exact(stream, _HEADER.size)
    if not head:
        return None
    if len(head) < _HEADER.size:
        raise ProtocolError(f"stream ended inside a frame header ({len(head)} of 4 bytes)")
    (n,) = _HEADER.unpack(head)
    _check_length(n)
    first = _read_exact(stream, 2)
    _check_start(first)
    if len(first) < 2:
        raise ProtocolError(f"stream ended inside a frame (expected {n} bytes)")
    body = bytearray(n)
    body[:2] = first
    rest = _read_exact_into(stream, memoryview(body)[2:])
    if rest < n - 2:
        raise ProtocolError(f"stream ended inside a frame ({2 + rest} of {n} bytes)")
    return decode(body)


def write_frame(stream: BinaryIO | int, msg: Message) -> None:
    """Encode and write one frame whole (loops over short writes), then flush."""
    data = memoryview(encode(msg))
    if isinstance(stream, int):
        while data:
            k = os.write(stream, data)
            data = data[k:]
        return
    stream.write(data)
    stream.flush()
