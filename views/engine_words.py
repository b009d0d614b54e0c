"""The engine's sentences, in the window's language — standard library only.

The engine (``kernels/``) speaks English and must not import Qt; some of its sentences reach the
window as they are (why there is no GPU, …). ``engine_text(message)`` matches a message against
the patterns below and returns the translation (context ``Engine``) with the parts the engine
filled in (a version, an error) kept as they were; a message no pattern knows comes back unchanged.
"""

from __future__ import annotations

import re

from .words import QT_TRANSLATE_NOOP, translate

__all__ = ["ENGINE_SENTENCES", "engine_text"]

#: (pattern of the engine's words, the same words with the pattern's groups as {placeholders})
ENGINE_SENTENCES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"this torch \((?P<version>[^)]*)\) is a CPU-only build"),
     QT_TRANSLATE_NOOP("Engine", "this torch ({version}) is a CPU-only build")),
    (re.compile(r"torch sees no CUDA device \(driver missing or no GPU visible\)"),
     QT_TRANSLATE_NOOP("Engine", "torch sees no CUDA device (driver missing or no GPU visible)")),
    (re.compile(r"CUDA is installed but unusable: (?P<error>.*)"),
     QT_TRANSLATE_NOOP("Engine", "CUDA is installed but unusable: {error}")),
    (re.compile(r"torch is not importable \((?P<error>.*)\)"),
     QT_TRANSLATE_NOOP("Engine", "torch is not importable ({error})")),
)


def engine_text(message: str) -> str:
    """``message`` in the window's language when it is one of ``ENGINE_SENTENCES`` (whole), else
    as it is."""
    for pattern, words in ENGINE_SENTENCES:
        m = pattern.fullmatch(message or "")
        if m:
            return translate("Engine", words).format(**m.groupdict())
    return message
