"""Dimensional analysis of a data set whose columns carry units (:mod:`.units`).

Three things, each on plain numbers and sympy expressions:

- :func:`pi_groups`: Buckingham's theorem. With the inputs' dimensions as the columns of a
  matrix D (7 base units by m inputs) and the target's as d_y, every law without dimensional
  constants of its own is y = prod x^a * F(pi_1, ..., pi_k), where D a = d_y and the pi_i =
  prod x^b_i span the null space of D (k = m - rank D). The exponents come out as small
  integers (each null vector scaled to integers and divided by their gcd).
- :func:`dimensional_constants`: which constant of a formula carries which unit. Every
  constant may carry one: its unit is inferred from where it stands (a term of a sum takes the
  unit of the other terms, the argument of exp, log or sin is dimensionless, an overall factor
  takes whatever the target needs); the formula is *inconsistent* where no assignment works
  (a sum of metres and seconds, the exponential of a length with no constant inside to make
  it dimensionless). A unit is tracked as exponents over the columns (y / x1^2), so that it is
  shown in the columns' own units and converted to SI by their factors.
- :func:`physical_constant`: a constant's SI value and dimension matched against the CODATA
  constants (G, c, h, hbar, k_B, e, epsilon_0, mu_0, R, N_A, sigma, and a few more), times a
  simple number and a small power: 8.99e9 N m^2 C^-2 is 1/(4 pi epsilon_0), 2.006 s m^-1/2 is
  2 pi / sqrt(g_n).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from .units import BASE, Unit, parse_unit

__all__ = ["Dimensional", "ConstantUnit", "pi_groups", "dimensional_constants", "tree_dimensions", "physical_constant",
           "CODATA", "unit_text"]

_ZERO = (Fraction(0),) * len(BASE)


def _dim(**p) -> tuple:
    return tuple(Fraction(p.get(b, 0)) for b in BASE)


CODATA: dict[str, tuple[float, tuple]] = {
    # CODATA 2018 (exact where the SI of 2019 fixes them); standard gravity by convention
    "G": (6.67430e-11, _dim(kg=-1, m=3, s=-2)),
    "c": (299792458.0, _dim(m=1, s=-1)),
    "h": (6.62607015e-34, _dim(kg=1, m=2, s=-1)),
    "hbar": (1.054571817e-34, _dim(kg=1, m=2, s=-1)),
    "k_B": (1.380649e-23, _dim(kg=1, m=2, s=-2, K=-1)),
    "e": (1.602176634e-19, _dim(s=1, A=1)),
    "epsilon_0": (8.8541878128e-12, _dim(kg=-1, m=-3, s=4, A=2)),
    "mu_0": (1.25663706212e-6, _dim(kg=1, m=1, s=-2, A=-2)),
    "R": (8.314462618, _dim(kg=1, m=2, s=-2, K=-1, mol=-1)),
    "N_A": (6.02214076e23, _dim(mol=-1)),
    "sigma": (5.670374419e-8, _dim(kg=1, s=-3, K=-4)),
    "F": (96485.33212, _dim(s=1, A=1, mol=-1)),
    "m_e": (9.1093837015e-31, _dim(kg=1)),
    "m_p": (1.67262192369e-27, _dim(kg=1)),
    "g_n": (9.80665, _dim(m=1, s=-2)),
}
"""Physical constants by name: (SI value, dimension over :data:`~superpos.core.units.BASE`)."""

_MULTIPLIERS = ((1.0, ""), (2.0, "2"), (0.5, "1/2"), (4.0, "4"), (0.25, "1/4"), (math.pi, "pi"),
                (2 * math.pi, "2 pi"), (4 * math.pi, "4 pi"), (1 / math.pi, "1/pi"), (1 / (2 * math.pi), "1/(2 pi)"),
                (1 / (4 * math.pi), "1/(4 pi)"), (3.0, "3"), (1 / 3, "1/3"), (8 * math.pi, "8 pi"),
                (1 / (8 * math.pi), "1/(8 pi)"), (math.sqrt(2), "sqrt(2)"), (1 / math.sqrt(2), "1/sqrt(2)"))
_POWERS = (Fraction(1), Fraction(-1), Fraction(2), Fraction(-2), Fraction(1, 2), Fraction(-1, 2), Fraction(4),
           Fraction(3, 2), Fraction(-3, 2))


def physical_constant(value_si: float, dimension: tuple, rtol: float = 1e-3) -> str | None:
    """The name of a constant k C^p (C in :data:`CODATA`, k a simple number, p a small power)
    whose dimension is ``dimension`` and whose value is within ``rtol`` of ``value_si``'s
    magnitude, simplest first (p = 1, then k = 1); None where none is. A dimensionless constant
    is never named (it is a number)."""
    if all(d == 0 for d in dimension) or not (math.isfinite(value_si) and value_si != 0):
        return None
    v = abs(value_si)
    for p in _POWERS:
        for name, (c, dim) in CODATA.items():
            if tuple(d * p for d in dim) != tuple(dimension):
                continue
            base = c ** float(p)
            for k, text in _MULTIPLIERS:
                if abs(k * base - v) <= rtol * v:
                    sym = name if p == 1 else f"{name}^{p}" if p.denominator == 1 else f"{name}^({p})"
                    if p == Fraction(1, 2):
                        sym = f"sqrt({name})"
                    elif p == Fraction(-1, 2):
                        sym = f"1/sqrt({name})"
                    elif p == -1:
                        sym = f"1/{name}"
                    out = sym if not text else f"{text} {sym}" if not sym.startswith("1/") else \
                        f"{text}/{sym[2:]}" if not text.startswith("1/") else f"1/({_unwrapped(text[2:])} {sym[2:]})"
                    return ("-" if value_si < 0 else "") + out
    return None


def _unwrapped(text: str) -> str:
    """``text`` without one pair of parentheses around all of it (``(4 pi)`` is ``4 pi``;
    ``sqrt(2)`` stays)."""
    if text.startswith("(") and text.endswith(")"):
        depth = 0
        for k, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0 and k < len(text) - 1:
                return text
        return text[1:-1]
    return text


def _rational_matrix(rows) -> sympy.Matrix:
    return sympy.Matrix([[sympy.Rational(v.numerator, v.denominator) for v in r] for r in rows])


def _integer_vector(v) -> tuple[int, ...]:
    """A rational vector scaled to the smallest integers of the same direction, first nonzero > 0."""
    den = 1
    for a in v:
        den = math.lcm(den, int(sympy.fraction(sympy.nsimplify(a))[1]))
    ints = [int(a * den) for a in v]
    g = 0
    for a in ints:
        g = math.gcd(g, abs(a))
    ints = [a // g for a in ints] if g else ints
    first = next((a for a in ints if a), 1)
    return tuple(-a if first < 0 else a for a in ints)


def pi_groups(inputs: list[tuple], target: tuple) -> tuple[tuple[Fraction, ...], tuple[tuple[int, ...], ...]] | None:
    """(a, groups) of Buckingham's theorem for inputs of dimensions ``inputs`` and a target of
    dimension ``target``: y / prod x^a is dimensionless (a: sympy's particular solution, over
    the pivot columns of the inputs in their order) and each group prod x^b is a dimensionless product (integer b, a basis
    of the null space); None where no product of the inputs has y's dimension (the law then
    holds a dimensional constant of its own)."""
    m = len(inputs)
    if m == 0:
        return None
    D = _rational_matrix([[inputs[j][i] for j in range(m)] for i in range(len(BASE))])
    d = _rational_matrix([[t] for t in target])
    try:
        sol, params = D.gauss_jordan_solve(d)
    except ValueError:  # no solution
        return None
    sol = sol.subs({p: 0 for p in params})
    a = tuple(Fraction(int(sympy.fraction(v)[0]), int(sympy.fraction(v)[1])) for v in sol)
    groups = tuple(_integer_vector(list(v)) for v in D.nullspace())
    return a, groups


@dataclass(frozen=True)
class ConstantUnit:
    """A constant of a formula and the unit it carries: ``exponents`` over the columns (inputs,
    then y), ``unit`` that written in the columns' units, ``dimension`` over the SI base units,
    ``si_value`` its value in SI, ``name`` the physical constant it matches (or None) and
    ``symbol`` the symbol that stands for it in the formula (or None: a number there)."""

    value: float
    exponents: tuple
    unit: str
    dimension: tuple
    si_value: float
    name: str | None = None
    symbol: str | None = None

    @property
    def si(self) -> str:
        return Unit(1.0, self.dimension).si()


@dataclass(frozen=True)
class Dimensional:
    """What dimensional analysis says of a formula: ``consistent`` (some assignment of units to
    its constants makes it so), ``why`` (where it is not), and the ``constants`` that carry a
    unit (the dimensionless ones are numbers and left out)."""

    consistent: bool
    why: str = ""
    constants: tuple = field(default=())


class _Inconsistent(Exception):
    pass


_PURE_FUNCTIONS = (sympy.exp, sympy.log, sympy.sin, sympy.cos, sympy.tan, sympy.sinh, sympy.cosh, sympy.tanh,
                   sympy.asin, sympy.acos, sympy.atan, sympy.asinh, sympy.acosh, sympy.atanh, sympy.erf,
                   sympy.erfc, sympy.gamma, sympy.loggamma, sympy.cot, sympy.sec, sympy.csc)


class _Walk:
    """Bottom-up inference. A subexpression is ``("known", v)`` (its unit, exponents over the
    columns) or ``("free", entries)``: its unit V is not fixed yet, and each entry (k, a, b)
    says that constant k carries a V + b once V is chosen."""

    def __init__(self, symbols: list, units: list[Unit], values: dict):
        self.index = {str(s): j for j, s in enumerate(symbols)}
        self.units = units  # per column, the target last
        self.values = values  # symbols that stand for constants: name -> value
        self.width = len(units)
        self.constants: list[list] = []  # [value, exponents or None, symbol or None]

    def zero(self) -> tuple:
        return (Fraction(0),) * self.width

    def dimension(self, v: tuple) -> tuple:
        out = list(_ZERO)
        for c, e in enumerate(v):
            if e:
                for i, d in enumerate(self.units[c].dimension):
                    out[i] += e * d
        return tuple(out)

    def resolve(self, state, v: tuple) -> None:
        if state[0] == "free":
            for k, a, b in state[1]:
                if self.constants[k][1] is None:
                    self.constants[k][1] = tuple(a * x + y for x, y in zip(v, b))

    def describe(self, v: tuple) -> str:
        return Unit(1.0, self.dimension(v)).si()

    def __call__(self, e):
        if e.is_Symbol and e.name in self.values and e.name not in self.index:
            self.constants.append([float(self.values[e.name]), None, e.name])
            return ("free", [(len(self.constants) - 1, Fraction(1), self.zero())])
        if e.is_Symbol:
            if e.name not in self.index:
                raise _Inconsistent(f"the symbol {e} is not a column")
            v = [Fraction(0)] * self.width
            v[self.index[e.name]] = Fraction(1)
            return ("known", tuple(v))
        if e.is_Number:
            if e in (0, 1, -1) or e.is_infinite or e == sympy.nan:
                return ("known", self.zero())
            self.constants.append([float(e), None, None])
            return ("free", [(len(self.constants) - 1, Fraction(1), self.zero())])
        if e.is_NumberSymbol or e.is_number:
            return ("known", self.zero())
        if e.is_Add:
            return self.sum(e.args)
        if e.is_Mul:
            states = [self(a) for a in e.args]
            if any(s == ("free", []) for s in states):  # a fitted power: no claim on the product
                for s in states:
                    self.resolve(s, self.zero())
                return ("free", [])
            total = self.zero()
            for s in states:
                if s[0] == "known":
                    total = tuple(x + y for x, y in zip(total, s[1]))
            frees = [s for s in states if s[0] == "free"]
            if not frees:
                return ("known", total)
            for s in frees[1:]:
                self.resolve(s, self.zero())
            return ("free", [(k, a, tuple(y - a * t for y, t in zip(b, total))) for k, a, b in frees[0][1]])
        if e.is_Pow:
            base, ex = e.args
            if isinstance(ex, sympy.Float):  # 2.0 is 2; 1.37 stays a fitted exponent
                q = Fraction(float(ex)).limit_denominator(12)
                ex = sympy.Rational(q.numerator, q.denominator) if abs(float(q) - float(ex)) <= 1e-9 else ex
            if ex.is_Number and ex.is_rational:
                p = Fraction(int(ex.p), int(ex.q))
                s = self(base)
                if s[0] == "known":
                    return ("known", tuple(p * x for x in s[1]))
                return ("free", [(k, a / p, b) for k, a, b in s[1]])
            if ex.is_Number or (ex.free_symbols and all(s.name in self.values for s in ex.free_symbols)):
                # a fitted exponent: the power's unit is the base's to a power not known in
                # advance, which the constant in front of it carries
                self(ex)
                s = self(base)
                if s[0] == "free":
                    self.resolve(s, self.zero())
                return ("free", [])
            self.pure(base, "the base of a power with a variable exponent")
            self.pure(ex, "an exponent")
            return ("known", self.zero())
        if isinstance(e, sympy.Abs):
            return self(e.args[0])
        if isinstance(e, (sympy.sign, sympy.Heaviside)):
            self(e.args[0])
            return ("known", self.zero())
        if isinstance(e, (sympy.Max, sympy.Min)):
            return self.sum(e.args)
        if isinstance(e, sympy.log):
            # the logarithm of a quantity with a unit: log(x) + c is log(x / x0) and exp(a log x)
            # is x^a, so its unit goes into a constant beside it; no claim either way
            s = self(e.args[0])
            self.resolve(s, self.zero())
            return ("known", self.zero())
        if isinstance(e, _PURE_FUNCTIONS):
            for a in e.args:
                self.pure(a, f"the argument of {type(e).__name__}")
            return ("known", self.zero())
        for a in e.args:  # a node without a rule (Piecewise, Mod, atan2, re): no claim
            if isinstance(a, sympy.Expr):
                s = self(a)
                self.resolve(s, self.zero())
        return ("free", [])

    def sum(self, args) -> tuple:
        """The state of a sum (or of Max / Min) of ``args``: their known units must agree; a bare
        1 or -1 there is a constant like any other (x + 1 is x + x0)."""
        states = []
        for a in args:
            if a in (1, -1):
                self.constants.append([float(a), None, None])
                states.append(("free", [(len(self.constants) - 1, Fraction(1), self.zero())]))
            else:
                states.append(self(a))
        known = [s[1] for s in states if s[0] == "known"]
        for v in known[1:]:
            if self.dimension(v) != self.dimension(known[0]):
                raise _Inconsistent(f"a sum of terms in {self.describe(known[0])} and in {self.describe(v)}")
        if known:
            for s in states:
                self.resolve(s, known[0])
            return ("known", known[0])
        return ("free", [entry for s in states for entry in s[1]])

    def pure(self, arg, what: str) -> None:
        s = self(arg)
        if s[0] == "known" and any(self.dimension(s[1])):
            raise _Inconsistent(f"{what} is in {self.describe(s[1])}, not dimensionless")
        self.resolve(s, self.zero())


def unit_text(exponents: tuple, texts: list[str]) -> str:
    """A unit written as a product of the columns' unit texts: ``J m^-2``."""
    merged: dict[str, Fraction] = {}
    for e, t in zip(exponents, texts):
        if e and t not in ("", "1", "-"):
            merged[t] = merged.get(t, Fraction(0)) + e
    parts = []
    for t, e in sorted(merged.items(), key=lambda te: te[1] < 0):
        if e:
            t = f"({t})" if any(ch in t for ch in " /*()\u00b7.") or ("^" in t and e != 1) else t
            parts.append(t if e == 1 else f"{t}^{e}" if e.denominator == 1 else f"{t}^({e})")
    return " ".join(parts) or "1"


def dimensional_constants(expr: sympy.Expr, symbols: list, units: list[Unit], texts: list[str],
                          errors: dict | None = None, values: dict | None = None) -> Dimensional:
    """:class:`Dimensional` of ``expr`` over the columns ``symbols`` (inputs, or their names) of units ``units``
    (inputs, then the target) written ``texts``. ``errors`` (value -> standard error) widens
    the match of :func:`physical_constant` to two standard errors (at most 2 %). ``values``
    (symbol name -> value): symbols of ``expr`` that stand for constants (a tree's c0, c1,
    ...), reported with their ``symbol``."""
    walk = _Walk(list(symbols), list(units), dict(values or {}))
    try:
        state = walk(expr)
        width = len(units)
        target = tuple(Fraction(int(c == width - 1)) for c in range(width))
        if state[0] == "free":
            walk.resolve(state, target)
        elif walk.dimension(state[1]) != walk.dimension(target):
            return Dimensional(False, f"the formula is in {walk.describe(state[1])} and y in {walk.describe(target)}, "
                                      "with no constant to carry the difference")
    except _Inconsistent as exc:
        return Dimensional(False, str(exc))
    out = []
    for value, v, symbol in walk.constants:
        v = v if v is not None else walk.zero()
        dim = walk.dimension(v)
        if not any(dim):
            continue
        u = Unit()
        for c, e in enumerate(v):
            if e:
                u = u * (Unit(units[c].factor, units[c].dimension) ** e)
        si_value = value * u.factor
        se = (errors or {}).get(value)
        rtol = 1e-3 if se is None or not math.isfinite(se) else min(max(1e-3, 2 * abs(se / value)), 0.02)
        out.append(ConstantUnit(value, v, unit_text(v, texts), dim, si_value, physical_constant(si_value, dim, rtol),
                                symbol))
    return Dimensional(True, "", tuple(out))


def tree_dimensions(tree, basis, constants, units: tuple | None) -> Dimensional | None:
    """:func:`dimensional_constants` of a tree over ``basis`` (inputs x1..xm), its constants
    written as symbols c0, c1, ... (each reported with its ``symbol``), for the columns' unit
    texts ``units`` (the target last); None where a column has no unit or the tree cannot be
    written."""
    if units is None or any(u is None for u in units):
        return None
    import numpy as np

    from ..exceptions import SuperposError
    from .symbolic import to_sympy

    try:
        expr = to_sympy(tree, basis)
    except SuperposError:
        return None
    values = {f"c{k}": float(v) for k, v in enumerate(np.ravel(constants))}
    return dimensional_constants(expr, [f"x{j + 1}" for j in range(len(units) - 1)], [parse_unit(u) for u in units],
                                 list(units), values=values)
