"""Basis functions: one record per function, evaluation and rendering side by side.

Colour 0 of every basis is the implicit identity root h0 (arity 1); the
functions the user chooses are colours 1..r in the order given.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np
import sympy

from ..exceptions import SuperposError
from .numeric import DIV_EPS

__all__ = ["BasisFunction", "Basis", "register_function", "available_functions", "builtin_function"]

ROOT = "h0"
_CONSTANT = "c"
MAX_VARIABLES = 20  # input variables x1..x20 at most: a basis, a model file or a corpus file
_VARIABLE = re.compile(r"^x([1-9][0-9]*)$")


def _safe_div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(b) > DIV_EPS, a / np.where(b == 0, 1.0, b), np.nan)


def _safe_log(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.abs(a)
        return np.where(a > 0, np.log(np.where(a > 0, a, 1.0)), np.nan)


def _exp(a):
    with np.errstate(over="ignore"):
        return np.exp(a)


def _pow(k):
    def f(a):
        with np.errstate(over="ignore", invalid="ignore"):
            return a**k

    return f


def _arc(f):
    """asin or acos: NaN outside [-1, 1], without numpy's warning."""
    def g(a):
        with np.errstate(invalid="ignore"):
            return f(a)

    return g


_erf = np.vectorize(math.erf, otypes=[np.float64])
"""The error function, elementwise (libm's, as the compiled kernels'; NaN stays NaN)."""


def _abs_power(a, p):
    """|a|^p, protected as sqrt and log are: |a| keeps a fractional power real, and 0 to a
    negative power is NaN (as a division by zero), not inf."""
    with np.errstate(all="ignore"):
        a = np.abs(np.asarray(a, dtype=np.float64))
        out = a ** p
        return np.where((a == 0) & (p < 0), np.nan, out)


def _sympy_power(a, p):
    return sympy.Abs(a) ** p


@dataclass(frozen=True)
class BasisFunction:
    """One basis function h: ``name``, ``arity``, a numpy and a sympy implementation.

    ``kind`` is "function" (arity >= 1), "variable" (``index`` is the input column),
    "constant" (a free constant fitted to data) or "number" (a fixed ``value``).
    ``weight`` is its prior weight in the corpus generator. ``fitted``: the function takes a
    fitted constant of its own node besides its arguments (``powc(u) = |u|^c``), passed last to
    its implementations and numbered among the tree's constants in prefix order.
    """

    name: str
    arity: int
    numpy: Callable | None = field(default=None, compare=False, repr=False)
    sympy: Callable | None = field(default=None, compare=False, repr=False)
    kind: str = "function"
    index: int = -1
    value: float = 0.0
    weight: float = 1.0
    fitted: bool = False


def _fn(name, arity, np_impl, sp_impl, weight):
    return BasisFunction(name, arity, np_impl, sp_impl, "function", weight=weight)


_REGISTRY: dict[str, BasisFunction] = {
    f.name: f
    for f in [
        _fn("add", 2, np.add, lambda a, b: a + b, 1.0),
        _fn("sub", 2, np.subtract, lambda a, b: a - b, 0.6),
        _fn("mul", 2, np.multiply, lambda a, b: a * b, 1.0),
        _fn("div", 2, _safe_div, lambda a, b: a / b, 0.4),
        _fn("neg", 1, np.negative, lambda a: -a, 0.15),
        _fn("sin", 1, np.sin, sympy.sin, 0.5),
        _fn("cos", 1, np.cos, sympy.cos, 0.4),
        _fn("exp", 1, _exp, sympy.exp, 0.3),
        _fn("log", 1, _safe_log, lambda a: sympy.log(sympy.Abs(a)), 0.3),
        _fn("sqrt", 1, lambda a: np.sqrt(np.abs(a)), lambda a: sympy.sqrt(sympy.Abs(a)), 0.3),
        _fn("pow2", 1, _pow(2), lambda a: a**2, 0.5),
        _fn("pow3", 1, _pow(3), lambda a: a**3, 0.3),
        _fn("tanh", 1, np.tanh, sympy.tanh, 0.2),
        _fn("asin", 1, _arc(np.arcsin), sympy.asin, 0.2),
        _fn("acos", 1, _arc(np.arccos), sympy.acos, 0.2),
        _fn("erf", 1, _erf, sympy.erf, 0.2),
        BasisFunction("powc", 1, _abs_power, _sympy_power, "function", weight=0.3, fitted=True),
        BasisFunction(_CONSTANT, 0, None, None, "constant", weight=0.8),
        BasisFunction("1", 0, None, sympy.Integer(1), "number", value=1.0, weight=0.25),
        BasisFunction("2", 0, None, sympy.Integer(2), "number", value=2.0, weight=0.25),
    ]
}
_DEFAULT_NAMES = ["add", "sub", "mul", "div", "neg", "sin", "cos", "exp", "log", "sqrt",
                  "pow2", "pow3"]
_VARIABLE_WEIGHT = 2.5


def available_functions() -> list[str]:
    """Names of every registered function (variables x1, x2, ... are always available)."""
    return list(_REGISTRY)


def builtin_function(name: str) -> BasisFunction | None:
    """The registered record called ``name`` (None when there is none)."""
    return _REGISTRY.get(name)


def _check_function(f: BasisFunction) -> None:
    if not f.name or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", f.name) or _VARIABLE.match(f.name):
        raise SuperposError(f"invalid basis function name {f.name!r}: use an identifier that is not x1, x2, ...")
    if f.name in (ROOT, _CONSTANT):
        raise SuperposError(f"basis function name {f.name!r} is reserved")
    if not isinstance(f.arity, int) or f.arity < 1:
        raise SuperposError(f"basis function {f.name!r}: arity must be an integer >= 1 (leaves are variables, c or numbers)")
    u = [np.linspace(0.5, 2.0, 17) + 0.1 * k for k in range(f.arity)]
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(f.numpy(*u), dtype=float)
    except Exception as exc:  # noqa: BLE001 - a user's function can raise anything
        raise SuperposError(f"basis function {f.name!r} failed on ordinary inputs: {exc}") from None
    if out.shape != u[0].shape:
        raise SuperposError(f"basis function {f.name!r} must return an array of its inputs' shape {u[0].shape}, got {out.shape}")
    if not np.all(np.isfinite(out)):
        raise SuperposError(f"basis function {f.name!r} is not finite on inputs in [0.5, 2.3]")
    syms = sympy.symbols(f"u0:{f.arity}")
    try:
        expr = f.sympy(*syms)
    except Exception as exc:  # noqa: BLE001
        raise SuperposError(f"basis function {f.name!r}: its sympy implementation failed: {exc}") from None
    if not isinstance(expr, sympy.Expr):
        raise SuperposError(f"basis function {f.name!r}: the sympy implementation must return a sympy expression")


def register_function(name: str, arity: int, numpy_impl: Callable, sympy_impl: Callable,
                      weight: float = 0.3) -> BasisFunction:
    """Register a new basis function, usable by name in :class:`Basis`.

    ``numpy_impl(*arrays) -> array`` must keep the shape and be finite on ordinary inputs;
    ``sympy_impl(*exprs) -> sympy.Expr`` renders it. Returns the record. The compiled
    constant fitter cannot run Python functions: a registered function is fitted as a
    precomputed input column, so a skeleton with a free constant below it cannot be fitted
    (it loses to the other candidates).
    """
    f = _fn(name, arity, numpy_impl, sympy_impl, float(weight))
    _check_function(f)
    if name in _REGISTRY:
        raise SuperposError(f"a basis function named {name!r} is already registered")
    _REGISTRY[name] = f
    return f


def _variable(k: int) -> BasisFunction:
    return BasisFunction(f"x{k + 1}", 0, None, None, "variable", index=k, weight=_VARIABLE_WEIGHT)


class Basis:
    """An ordered set of basis functions; colour 0 is the implicit root h0.

    >>> b = Basis.default(n_variables=1)
    >>> b.names[:4]
    ['h0', 'add', 'sub', 'mul']
    """

    def __init__(self, names: Iterable[str], n_variables: int | None = None):
        names = list(names)
        if n_variables is not None:
            if not (isinstance(n_variables, (int, np.integer)) and 1 <= n_variables <= MAX_VARIABLES):
                raise SuperposError(f"n_variables must be an integer between 1 and {MAX_VARIABLES}, "
                                    f"got {str(n_variables)[:20]}")
            names = [n for n in names if not _VARIABLE.match(n)] + [f"x{k + 1}" for k in range(n_variables)]
        funcs: list[BasisFunction] = []
        for n in names:
            m = _VARIABLE.match(n) if isinstance(n, str) else None
            if m and (len(m.group(1)) > 3 or int(m.group(1)) > MAX_VARIABLES):
                raise SuperposError(f"basis variable {n[:40]!r}: at most {MAX_VARIABLES} input variables "
                                    f"(x1..x{MAX_VARIABLES})")
            if m:
                funcs.append(_variable(int(m.group(1)) - 1))
            elif isinstance(n, str) and n in _REGISTRY:
                funcs.append(_REGISTRY[n])
            else:
                raise SuperposError(f"unknown basis function {str(n)[:40]!r}; known: {', '.join(available_functions())}, x1, x2, ...")
        if len({f.name for f in funcs}) != len(funcs):
            raise SuperposError("a basis function name appears twice")
        if not any(f.arity == 0 for f in funcs):
            raise SuperposError("the basis has no leaves: add a variable (x1), the constant c or a number")
        if not any(f.kind == "variable" for f in funcs):
            raise SuperposError("the basis has no input variable: add x1")
        self.functions: tuple[BasisFunction, ...] = (BasisFunction(ROOT, 1, kind="root", weight=0.0), *funcs)
        self.names: list[str] = [f.name for f in self.functions]
        self.arities: np.ndarray = np.array([f.arity for f in self.functions], dtype=np.int64)
        self.weights: np.ndarray = np.array([f.weight for f in self.functions], dtype=np.float64)
        self.holds_constant: np.ndarray = np.array([f.kind == "constant" or f.fitted for f in self.functions])
        self._index = {n: k for k, n in enumerate(self.names)}
        self.n_variables: int = max(f.index for f in funcs) + 1
        self.variables: list[sympy.Symbol] = [sympy.Symbol(f"x{k + 1}", real=True) for k in range(self.n_variables)]

    @classmethod
    def default(cls, n_variables: int = 1) -> "Basis":
        """add, sub, mul, div, neg, sin, cos, exp, log, sqrt, pow2, pow3, x1..xm, c, 1, 2."""
        if not 1 <= int(n_variables) <= 9:
            raise SuperposError("n_variables must be between 1 and 9")
        return cls(_DEFAULT_NAMES + [f"x{k + 1}" for k in range(n_variables)] + [_CONSTANT, "1", "2"])

    def __len__(self) -> int:
        return len(self.functions)

    def __reduce__(self):
        return (Basis, (self.to_list(),))

    def __repr__(self) -> str:
        return f"Basis({self.names[1:]!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Basis) and self.names == other.names

    def __hash__(self) -> int:
        return hash(tuple(self.names))

    def index(self, name: str) -> int:
        """Colour id of the function called ``name``."""
        try:
            return self._index[name]
        except KeyError:
            raise SuperposError(f"{name!r} is not in this basis ({', '.join(self.names[1:])})") from None

    def has(self, name: str) -> bool:
        return name in self._index

    @property
    def max_arity(self) -> int:
        return int(self.arities.max())

    @property
    def leaves(self) -> np.ndarray:
        """Colour ids of the zero-arity functions."""
        return np.flatnonzero(self.arities == 0)

    @property
    def constant(self) -> int:
        """Colour id of the free constant ``c`` or -1."""
        return self._index.get(_CONSTANT, -1)

    def n_constants(self, tree) -> int:
        """The number of fitted constants of a tree over this basis: its ``c`` leaves and the
        constants of its nodes (``powc``'s exponent), numbered in prefix order."""
        return int(np.sum(self.holds_constant[np.asarray(tree, dtype=np.int64)]))

    def to_list(self) -> list[str]:
        """Names without the root, enough to rebuild the basis: ``Basis(b.to_list())``."""
        return self.names[1:]

