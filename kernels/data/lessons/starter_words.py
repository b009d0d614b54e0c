"""A lesson's Python file in another language: its docstrings and comments replaced, its code
untouched — no torch, no triton.

The words live beside the lesson, in ``resources/lessons/<nn>_<name>/starter.<lang>.md``:

    ## docstring module
    第 1 课：……            (the module's docstring, as it is to read; continuation lines as written)

    ## docstring which_program
    你的预测：……            (the docstring of the function of that name)

    ## comment: which program am I? 0, 1, 2, ...
    我是第几个程序？0、1、2……   (a comment whose English text, after "# ", is exactly that)

A docstring or comment with no entry stays English; ``untranslated`` lists them (the tests hold
every lesson to none), and ``unused`` the entries no docstring or comment has any more.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["StarterWords", "load_words", "translate_source", "untranslated", "unused"]

_HEADER = re.compile(r"^## (?:docstring (?P<doc>[A-Za-z_][A-Za-z0-9_]*)|comment: (?P<comment>.+))$")


@dataclass
class StarterWords:
    """Docstrings by owner ("module" or a function's name) and comments by their English text."""

    docstrings: dict[str, str] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)


def load_words(path: Path) -> StarterWords:
    """The entries of one ``starter.<lang>.md`` (none when the file is missing)."""
    words = StarterWords()
    if not path.is_file():
        return words
    key: tuple[str, str] | None = None
    body: list[str] = []

    def close() -> None:
        if key is not None:
            text = "\n".join(body).strip("\n")
            (words.docstrings if key[0] == "doc" else words.comments)[key[1]] = text

    for line in path.read_text(encoding="utf-8").splitlines():
        m = _HEADER.match(line)
        if m:
            close()
            key, body = (("doc", m.group("doc")) if m.group("doc") else ("comment", m.group("comment").strip())), []
        elif key is not None:
            body.append(line)
    close()
    return words


def _docstring_nodes(tree: ast.Module) -> list[tuple[str, ast.Expr]]:
    """(owner, the docstring's statement) of the module and of every function that has one."""
    out = []
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, (ast.Module, ast.FunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                out.append(("module" if isinstance(node, ast.Module) else node.name, first))
    return list(dict(out).items())  # the module appears twice in the walk


def _comments(source: str) -> list[tuple[int, int, str]]:
    """(line, column, English text after "# ") of every comment."""
    return [(t.start[0], t.start[1], t.string[1:].strip())
            for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]


def translate_source(source: str, words: StarterWords) -> str:
    """``source`` with each docstring and comment that has an entry in ``words`` replaced."""
    lines = source.split("\n")
    for row, col, text in _comments(source):
        if text in words.comments:
            lines[row - 1] = lines[row - 1][:col] + "# " + words.comments[text]
    source = "\n".join(lines)
    lines = source.split("\n")
    for owner, stmt in sorted(_docstring_nodes(ast.parse(source)), key=lambda d: -d[1].lineno):
        text = words.docstrings.get(owner)
        if text is None:
            continue
        if '"""' in text or "\\" in text:
            raise ValueError(f"the {owner} docstring's translation holds a triple quote or a backslash")
        old = stmt.value.value
        indent = " " * stmt.col_offset
        body = text.replace("\n", "\n" + indent).replace("\n" + indent + "\n", "\n\n")
        if old.endswith("\n"):  # the closing quotes on their own line, as in the English
            body += "\n" + indent
        lines[stmt.lineno - 1: stmt.end_lineno] = [f'{indent}"""{body}"""']
    return "\n".join(lines)


def untranslated(source: str, words: StarterWords) -> list[str]:
    """The docstrings ("docstring <owner>") and comments ("comment: <text>") of ``source`` that
    ``words`` has no entry for."""
    docs = [f"docstring {owner}" for owner, _ in _docstring_nodes(ast.parse(source)) if owner not in words.docstrings]
    return docs + [f"comment: {text}" for _, _, text in _comments(source) if text not in words.comments]


def unused(source: str, words: StarterWords) -> list[str]:
    """The entries of ``words`` that no docstring or comment of ``source`` has."""
    owners = {owner for owner, _ in _docstring_nodes(ast.parse(source))}
    texts = {text for _, _, text in _comments(source)}
    return ([f"docstring {o}" for o in words.docstrings if o not in owners]
            + [f"comment: {t}" for t in words.comments if t not in texts])
