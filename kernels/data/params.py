"""Kernel parameters and their validation — pure Python, importable by the GUI process.

A ``Param`` says what a value is (a constexpr block size, a launch option, a shape, a dtype or a
flag), its default, and the constraints it must meet. A ``Rule`` is a constraint across several
parameters, written as a small Python expression over the parameter names so that it can travel
to the GUI process (which never imports the catalog, torch or triton) and be checked there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "DTYPES",
    "NUM_WARPS",
    "Param",
    "ParamKind",
    "Rule",
    "ValidationError",
    "block",
    "dtype_param",
    "flag",
    "is_pow2",
    "num_stages",
    "num_warps",
    "parse_value",
    "shape",
    "validate",
]

ParamKind = Literal["constexpr", "launch", "shape", "dtype", "flag"]

#: dtype names users type, in the order a picker shows them.
DTYPES: tuple[str, ...] = ("fp32", "fp16", "bf16")
#: num_warps values Triton accepts.
NUM_WARPS: tuple[int, ...] = (1, 2, 4, 8, 16, 32)


class ValidationError(ValueError):
    """A value a user gave is not acceptable. ``field`` names the parameter (or None)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field
        self.message = message

    def __reduce__(self):  # keep ``field`` when pickled across the worker pipe
        return (type(self), (self.message, self.field))


def is_pow2(v: int) -> bool:
    return isinstance(v, int) and v > 0 and (v & (v - 1)) == 0


@dataclass(frozen=True)
class Param:
    """One tunable value of a kernel run.

    kind:
      - ``constexpr``: a ``tl.constexpr`` argument of the kernel (BLOCK_SIZE, GROUP_SIZE_M);
      - ``launch``: a launch option (num_warps, num_stages);
      - ``shape``: a problem size (N, M, K, n_rows…);
      - ``dtype``: the input element type, one of ``choices``;
      - ``flag``: a boolean (CAUSAL).
    """

    name: str
    kind: ParamKind
    default: Any
    help: str = ""
    choices: tuple | None = None
    pow2: bool = False
    min: int | None = None
    max: int | None = None

    def check(self, value: Any) -> str | None:
        """Return why ``value`` is not acceptable, or None when it is."""
        if self.kind == "flag":
            return None if isinstance(value, bool) else f"{self.name} must be true or false"
        if self.kind == "dtype":
            if value not in (self.choices or DTYPES):
                allowed = ", ".join(self.choices or DTYPES)
                return f"{self.name} {value!r} is not supported by this kernel (allowed: {allowed})"
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{self.name} must be an integer, got {value!r}"
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            return f"{self.name}={value} is not allowed (allowed: {allowed})"
        if self.min is not None and value < self.min:
            if self.kind == "shape" and value <= 0:
                return f"{self.name}={value}: a size must be positive"
            return f"{self.name}={value} is below the minimum {self.min}"
        if self.max is not None and value > self.max:
            return f"{self.name}={value} is above the maximum {self.max}"
        if self.pow2 and not is_pow2(value):
            return f"{self.name}={value} must be a power of two (e.g. {_near_pow2(value)})"
        return None

    def parse(self, text: str) -> Any:
        """Parse a value typed by a user (CLI ``--param X=..`` or a GUI field)."""
        return parse_value(self, text)


def _near_pow2(v: int) -> str:
    if v <= 1:
        return "1, 2, 4"
    lo = 1 << (int(v).bit_length() - 1)
    return f"{lo} or {lo * 2}"


#: the longest number text parsed (2**63 has 19 digits; "1_000_000_000" style and 0x… fit)
MAX_NUMBER_TEXT = 40


def parse_value(p: Param, text: str | Any) -> Any:
    if not isinstance(text, str):
        return text
    t = text.strip()
    if p.kind == "dtype":
        aliases = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "half": "fp16", "float": "fp32"}
        return aliases.get(t.lower(), t.lower())
    if p.kind == "flag":
        low = t.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValidationError(f"{p.name}: {text!r} is not true/false", p.name)
    if len(t) > MAX_NUMBER_TEXT:  # a 10^7-digit paste would take seconds to parse, and means nothing
        raise ValidationError(f"{p.name}: a number of {len(t):,} characters is too long (at most "
                              f"{MAX_NUMBER_TEXT}); sizes here are at most 2^63", p.name)
    try:
        # accept 2**20, 1e6 style and underscores, but only exact integers
        t2 = t.replace("_", "")
        if "**" in t2:
            a, b = t2.split("**", 1)
            base, exp = int(a), int(b)
            if exp > 64 or exp < 0:
                raise ValidationError(f"{p.name}: {text!r} is out of range (exponent at most 64)", p.name)
            return base ** exp
        if "e" in t2.lower() and not t2.lower().startswith("0x"):
            f = float(t2)
            if f != int(f):
                raise ValueError
            return int(f)
        return int(t2, 0)
    except ValidationError:
        raise
    except (ValueError, OverflowError):
        raise ValidationError(f"{p.name}: {text!r} is not an integer", p.name) from None


# ---------------------------------------------------------------------------------------------
# cross-parameter rules


_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Load,
    ast.Constant, ast.And, ast.Or, ast.Not, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod,
    ast.Pow, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Tuple,
    ast.USub, ast.IfExp, ast.Call,
)
_ALLOWED_CALLS = {"min": min, "max": max, "abs": abs}


@dataclass(frozen=True)
class Rule:
    """A constraint over several parameters: ``expr`` must be true. ``fields`` are marked."""

    expr: str
    message: str
    fields: tuple[str, ...] = ()

    def holds(self, values: Mapping[str, Any]) -> bool:
        tree = ast.parse(self.expr, mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED_NODES):
                raise ValueError(f"rule {self.expr!r}: {type(node).__name__} not allowed")
            if isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id in _ALLOWED_CALLS
            ):
                raise ValueError(f"rule {self.expr!r}: only min/max/abs calls allowed")
        env = dict(_ALLOWED_CALLS)
        env.update(values)
        return bool(eval(compile(tree, "<rule>", "eval"), {"__builtins__": {}}, env))  # noqa: S307


# ---------------------------------------------------------------------------------------------
# constructors for the common parameters


def block(name: str = "BLOCK_SIZE", default: int = 1024, lo: int = 16, hi: int = 65536, help: str = "") -> Param:
    return Param(name, "constexpr", default, help or f"{name}: elements per program (power of two)",
                 pow2=True, min=lo, max=hi)


def num_warps(default: int = 4) -> Param:
    return Param("num_warps", "launch", default, "warps per program (GPU only)", choices=NUM_WARPS)


def num_stages(default: int = 3) -> Param:
    return Param("num_stages", "launch", default, "software-pipelining stages (GPU only)", min=1, max=8)


def shape(name: str, default: int, hi: int = 1 << 31, help: str = "", lo: int = 1) -> Param:
    return Param(name, "shape", default, help or f"problem size {name}", min=lo, max=hi)


def dtype_param(choices: Sequence[str] = DTYPES, default: str = "fp32") -> Param:
    return Param("dtype", "dtype", default, "input element type", choices=tuple(choices))


def flag(name: str, default: bool = False, help: str = "") -> Param:
    return Param(name, "flag", default, help)


# ---------------------------------------------------------------------------------------------


@dataclass
class Validation:
    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # field name (or "" for general) -> reason

    @property
    def ok(self) -> bool:
        return not self.errors

    def first_error(self) -> ValidationError | None:
        for k, v in self.errors.items():
            return ValidationError(v, k or None)
        return None


def validate(params: Iterable[Param], rules: Iterable[Rule], given: Mapping[str, Any]) -> Validation:
    """Fill defaults, parse strings, check each value, then the rules. Never raises for bad values."""
    params = list(params)
    names = {p.name for p in params}
    out = Validation()
    for k in given:
        if k not in names:
            out.errors[k] = f"unknown parameter {k!r} (known: {', '.join(sorted(names))})"
    for p in params:
        raw = given.get(p.name, p.default)
        try:
            v = parse_value(p, raw)
        except ValidationError as e:
            out.errors[p.name] = e.message
            continue
        reason = p.check(v)
        if reason:
            out.errors[p.name] = reason
        out.values[p.name] = v
    if out.errors:
        return out
    for r in rules:
        try:
            ok = r.holds(out.values)
        except Exception as e:  # a broken rule is a bug in the spec; report it, don't crash
            out.errors[r.fields[0] if r.fields else ""] = f"rule {r.expr!r} failed: {e}"
            continue
        if not ok:
            key = r.fields[0] if r.fields else ""
            out.errors.setdefault(key, r.message)
    return out
