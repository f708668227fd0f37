"""Rendering a fitted formula: constants rounded to simple numbers, and sympy's
simplification under a wall-clock cap (sympy can spin for minutes on odd input)."""
from __future__ import annotations

import importlib
import sys
import types
from contextlib import contextmanager

import numpy as np
import sympy

from ..core.constants import number_code, pi_multiple
from ..core.timecap import CapExceeded, cap_available, capped
from .tuning import TUNING, Tuning

__all__ = ["round_constants", "wrapped_phases", "monic_denominators", "simplify_capped", "clean_constants",
           "cancelled_terms", "signed_abs",
           "distinct_formulas", "rename_variables", "units_unimported"]


_UNITS = "sympy.physics.units"


class _NoQuantity:
    """Stands in for sympy.physics.units.Quantity while that module is not imported: no
    expression can hold a Quantity before it is."""


@contextmanager
def units_unimported():
    """sympy.simplify imports sympy.physics.units (with sympy.physics, 0.1-0.15 s: a tenth of
    a `superpos predict` call) only to ask whether the expression holds a physical Quantity.
    Inside this block, while that module is not imported, a stand-in answers: its Quantity is
    a class no expression holds, and any other name imports the real module and is taken
    from it. The stand-in is gone when the block ends; an imported module is left alone.
    For a process that owns its imports (the command line): another thread that imported
    sympy.physics.units inside the block would get the stand-in."""
    if _UNITS in sys.modules:
        yield
        return
    stub = types.ModuleType(_UNITS)

    def real(name: str):
        if name.startswith("__"):  # the import system's questions (__path__, ...): a plain module
            raise AttributeError(name)
        if sys.modules.get(_UNITS) is stub:
            del sys.modules[_UNITS]
        return getattr(importlib.import_module(_UNITS), name)

    stub.Quantity = _NoQuantity
    stub.__getattr__ = real
    sys.modules[_UNITS] = stub
    try:
        yield
    finally:
        if sys.modules.get(_UNITS) is stub:
            del sys.modules[_UNITS]


def _factored(expr: sympy.Expr, seconds: float) -> sympy.Expr:
    """sympy's ``factor`` of ``expr`` where it has fewer operations, under a cap of ``seconds``;
    else ``expr``. simplify does not try it: (cos(x7) - 1)^2 came back as cos(x7)^2 - 2 cos(x7) + 1."""
    try:
        out = capped(lambda: sympy.factor(expr), seconds) if cap_available(seconds) else expr
    except Exception:  # noqa: BLE001 - the cap, or sympy failing on odd input
        return expr
    return out if sympy.count_ops(out) < sympy.count_ops(expr) else expr


def simplify_capped(expr: sympy.Expr, seconds: float = 1.0, positive=(), tuning: Tuning = TUNING) -> sympy.Expr:
    """sympy.simplify under a wall-clock cap (SIGALRM, so only in the main thread and when
    no other interval timer is running; otherwise ``expr`` comes back as it is). Returns
    ``expr`` unchanged on timeout or when simplify makes it longer. Then :func:`_factored`, under
    ``factor_time_share`` of the cap (it takes milliseconds).
    Symbols named in ``positive`` are treated as positive while simplifying."""
    repl = {s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols if s.name in set(positive)}
    back = {v: k for k, v in repl.items()}
    e = expr.xreplace(repl) if repl else expr
    hidden = None
    trig = e.atoms(sympy.sin, sympy.cos)
    if len(trig) == 1:
        # trigsimp, most of simplify's time, has nothing to combine with a single trig call:
        # hide it behind an opaque function while simplifying
        kind = type(next(iter(trig)))
        hidden = (sympy.Function(f"_{kind.__name__}_"), kind)
        e = e.replace(kind, hidden[0])
    try:
        out = capped(lambda: sympy.simplify(e), seconds) if cap_available(seconds) else e
        if sympy.count_ops(out) > sympy.count_ops(e):
            out = e
    except CapExceeded:
        out = e
    except Exception:  # noqa: BLE001 - sympy can fail in many ways on odd input
        out = e
    out = _factored(out, tuning.factor_time_share * seconds)
    if hidden is not None:
        out = out.replace(*hidden)
    return out.xreplace(back) if back else out


def round_constants(expr: sympy.Expr, digits: int = 3, max_denominator: int = 12,
                    keep_floats: bool = False) -> sympy.Expr:
    """Floats within ``digits`` significant digits of a small rational (denominator <=
    ``max_denominator``) become that rational, from 6 digits on also those of a simple
    multiple of a power of pi (1/(4 pi), :func:`~superpos.core.constants.pi_multiple`); the
    others become the exact rational of
    their value rounded to ``digits`` significant digits, or stay as they are when
    ``keep_floats``."""
    def fix(f):
        v = float(f)
        if not np.isfinite(v):
            return f
        if v == 0:
            return sympy.Integer(0)
        q = sympy.Rational(v).limit_denominator(max_denominator)
        if abs(float(q) - v) <= 0.5 * 10.0 ** (1 - digits) * abs(v):
            return q
        p = pi_multiple(v, 0.5 * 10.0 ** (1 - digits)) if digits >= 6 else None
        if p is not None:
            return p
        return f if keep_floats else sympy.Rational(f"{v:.{digits}g}")

    return expr.xreplace({f: fix(f) for f in expr.atoms(sympy.Float)})


def wrapped_phases(expr: sympy.Expr) -> sympy.Expr:
    """sin(u + c) and cos(u + c) with the number c taken into (-pi, pi] (cos(x1 + 31/9) is
    cos(x1 - 2.8392)): the same function, written the way its phase is read."""
    def wrap(f):
        arg = f.args[0]
        if not isinstance(arg, sympy.Add):
            return f
        c, rest = arg.as_coeff_Add()
        if not c.is_number or not rest.free_symbols or abs(float(c)) <= np.pi:
            return f
        w = float(c) - 2 * np.pi * np.round(float(c) / (2 * np.pi))
        return type(f)(rest + sympy.Float(w))

    return expr.replace(lambda e: isinstance(e, (sympy.sin, sympy.cos)), wrap)


def monic_denominators(expr: sympy.Expr, shortest: bool = False) -> sympy.Expr:
    """Denominators linear in one input with a fitted (float) coefficient written with that
    coefficient 1, the factor moved out: -15/(0.01 T + 2.7315) is -1500/(T + 273.15), the
    offset in the user's units (a law found on data rescaled by powers of ten comes back with
    the scales inside). Exact coefficients stay: 1/(2 x + 1) is not 1/(2 (x + 1/2)).
    ``shortest`` (the formula shown): the constant term 1 instead where that writes the
    formula's numbers in less code (:func:`_numbers_code`): 0.032 x / (0.01 x + 0.0117647)
    is 2.72 x / (1 + 0.85 x), as Langmuir's isotherm is written, not 3.2 x / (x + 1.17647)."""
    def monic(p, unit_constant=False):
        base = p.base
        if not (p.exp == -1 and isinstance(base, sympy.Add) and len(base.free_symbols) == 1):
            return p
        x = next(iter(base.free_symbols))
        a, b = base.coeff(x, 1), base.coeff(x, 0)
        if not (a.is_Float and b.is_Number and a != 0 and a != 1) or sympy.expand(base - a * x - b) != 0:
            return p
        if unit_constant:
            return sympy.Pow(1 + a / b * x, -1) / b if b != 0 else p
        return sympy.Pow(x + b / a, -1) / a  # the Pow keeps sympy from distributing a over the sum again

    out = expr.replace(lambda e: isinstance(e, sympy.Pow), monic)
    if not shortest or out == expr:
        return out
    other = expr.replace(lambda e: isinstance(e, sympy.Pow), lambda e: monic(e, unit_constant=True))
    return other if _numbers_code(other) < _numbers_code(out) else out


def _numbers_code(expr: sympy.Expr) -> float:
    """Nats to write the floats of ``expr`` at 6 significant digits
    (:func:`~superpos.core.constants.number_code`; one it cannot write costs 50)."""
    return sum(number_code(float(f"{float(f):.6g}")) or 50.0 for f in expr.atoms(sympy.Float))


def clean_constants(expr: sympy.Expr, digits: int = 6, negligible: float = 1e-9) -> sympy.Expr:
    """A candidate for display: floats below ``negligible`` in magnitude become 0 (x1 -
    1.85e-10 is x1), the rest go through :func:`round_constants` at ``digits`` significant
    digits (1.0 is 1, 2.99999999 is 3)."""
    tiny = {f: sympy.Integer(0) for f in expr.atoms(sympy.Float) if abs(float(f)) < negligible}
    return round_constants(expr.xreplace(tiny) if tiny else expr, digits=digits, keep_floats=True)


def _on_rows(expr: sympy.Expr, X: np.ndarray) -> np.ndarray:
    """The values of ``expr`` (over x1..xm, whatever their assumptions) at every row of X."""
    xs = sympy.symbols(f"x1:{X.shape[1] + 1}")
    names = {s.name: s for s in expr.free_symbols}
    with np.errstate(all="ignore"):
        return np.broadcast_to(np.asarray(sympy.lambdify([names.get(x.name, x) for x in xs], expr, "numpy")(*X.T),
                                          dtype=np.float64), (X.shape[0],))


def cancelled_terms(expr: sympy.Expr, X: np.ndarray, y: np.ndarray, max_ops: int = 200,
                    tuning: Tuning = TUNING) -> sympy.Expr:
    """``expr`` without constants that cancel each other: its products distributed over sums,
    like terms collected, and the terms under ``cancelled_share`` of the root mean square of y
    at every row of X dropped; kept only where that is shorter than ``expr`` (an exact sum found
    as x4 (x3 / (x5 + x6) - 3.2575e-5) + 3.2575e-5 x4 + exp(-x1 / x2), each constant fitted
    where only their difference matters, is x3 x4 / (x5 + x6) + exp(-x1 / x2)). ``expr`` as it
    is beyond ``max_ops`` operations or where the expansion fails."""
    scale = float(np.sqrt(np.mean(np.asarray(y, dtype=np.float64) ** 2)))
    if sympy.count_ops(expr) > max_ops or not np.isfinite(scale) or scale == 0:
        return expr
    try:
        e = sympy.expand(expr, mul=True, multinomial=False, power_exp=False, power_base=False, log=False)
        kept, dropped = [], False
        for term in sympy.Add.make_args(e):
            v = _on_rows(term, X)
            if np.all(np.isfinite(v)) and np.max(np.abs(v)) <= tuning.cancelled_share * scale:
                dropped = True
            else:
                kept.append(term)
    except Exception:  # noqa: BLE001 - sympy can fail in many ways on odd input
        return expr
    out = sympy.Add(*kept)
    return out if dropped and kept and sympy.count_ops(out) < sympy.count_ops(expr) else expr


def signed_abs(expr: sympy.Expr, X: np.ndarray) -> sympy.Expr:
    """``expr`` with each |u| written u (or -u) where u keeps one sign at every row of X, innermost
    first: the tree's protected sqrt |u| of a u negative on the data, sqrt(|x2^2 / x3^2 - 1|), is
    sqrt(1 - x2^2 / x3^2), as a scientist writes it (sympy's simplify would make it
    |sqrt(x2^2 / x3^2 - 1)|, imaginary inside). The values on the data are unchanged."""
    def resolved(a: sympy.Abs) -> sympy.Expr:
        u = a.args[0]
        if u.is_Symbol:  # an input's sign is positive_inputs' matter
            return a
        try:
            v = _on_rows(u, X)
        except Exception:  # noqa: BLE001 - a function numpy lacks, or a complex value
            return a
        if not np.all(np.isfinite(v)):
            return a
        return u if np.all(v > 0) else -u if np.all(v < 0) else a

    try:
        return expr.replace(lambda e: isinstance(e, sympy.Abs), resolved)
    except Exception:  # noqa: BLE001 - sympy can fail in many ways on odd input
        return expr


def distinct_formulas(candidates, limit: int, names: list[str] | None = None,
                      transform=None) -> list[tuple[object, sympy.Expr]]:
    """The first ``limit`` candidates whose cleaned formula (:func:`clean_constants`, then
    ``transform`` (such as the way back to the data's units), in the data's variable
    ``names``) differs from every earlier one: [(candidate, formula)]."""
    seen, out = set(), []
    for c in candidates:
        if len(out) >= limit:
            break
        expr = clean_constants(c.formula)
        expr = transform(expr) if transform is not None else expr
        expr = rename_variables(expr, names) if names else expr
        key = str(expr)
        if key not in seen:
            seen.add(key)
            out.append((c, expr))
    return out


def rename_variables(expr: sympy.Expr, names: list[str]) -> sympy.Expr:
    """x1, x2, ... replaced by the data's column ``names`` (real symbols)."""
    subs = {s: sympy.Symbol(names[int(s.name[1:]) - 1], real=True) for s in expr.free_symbols
            if s.name[:1] == "x" and s.name[1:].isdigit() and 1 <= int(s.name[1:]) <= len(names)}
    return expr.xreplace(subs)
