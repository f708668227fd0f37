"""User templates: the form of the law given, its unknown parts found.

A template such as ``f(x1, x2) + g(x3)`` or ``exp(f(x1)) * g(x2) + c`` (read by
:func:`~superpos.core.formula.parse_template`) names placeholders, unknown functions of the
inputs they are called with. They are solved in two steps:

1. **Surrogates.** Each placeholder is a polynomial in its (standardised) inputs (total degree
   5 for one input, 3 for two, 2 for more, fewer where the points are few), the same one
   wherever the name recurs; the template's constants ``c`` and all coefficients are fitted
   jointly by least squares on the fitting points, with a small ridge on their constant terms that
   settles the offsets and scales a template leaves free (:func:`fit_surrogates`).
2. **Parts.** Each placeholder becomes a data set of its own, solved by the engine like a
   part of a separable law: its target is the template solved for it (y - g for
   f + g, y / g for f g, log y for exp(f), where sympy finds one solution) with the other
   placeholders at their current values, else its surrogate's values (a placeholder used
   twice: its first use). Backfitting passes as the separable proposer's; the parts' formulas
   go back into the template, which is refitted jointly from their constants.
"""
from __future__ import annotations

import ast
import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from ..core.formula import parse_template
from ..exceptions import SuperposError
from .tuning import TUNING, Tuning

__all__ = ["Template", "input_index", "read_template", "check_template", "template_over_inputs", "fit_surrogates",
           "solved_for", "monomials"]



@dataclass(frozen=True)
class Template:
    """A parsed template: ``expr`` over x1..xm with placeholder calls and constants c0, c1, ...;
    ``uses``: every placeholder call (a sympy AppliedUndef), in a fixed order; ``names``: each
    placeholder's name and its inputs at its first use (0-based); ``constants``: the c symbols;
    ``inputs``: the inputs the template names (0-based)."""

    text: str
    expr: sympy.Expr
    uses: tuple
    names: dict
    constants: tuple
    inputs: tuple


def input_index(symbol) -> int:
    """The 0-based input of a symbol x1, x2, ..."""
    return int(str(symbol)[1:]) - 1


def read_template(text: str, n_inputs: int) -> Template:
    """The template ``text`` over inputs x1..x``n_inputs`` (:func:`parse_template`)."""
    symbols = {f"x{j + 1}": sympy.Symbol(f"x{j + 1}", real=True) for j in range(n_inputs)}
    expr = parse_template(text, symbols)
    uses = tuple(sorted(expr.atoms(AppliedUndef), key=sympy.default_sort_key))
    names: dict = {}
    for u in uses:
        names.setdefault(u.func.__name__, tuple(input_index(a) for a in u.args))
    constants = tuple(sorted((s for s in expr.free_symbols if str(s).startswith("c")), key=lambda s: int(str(s)[1:])))
    inputs = tuple(sorted({input_index(s) for s in expr.free_symbols if str(s).startswith("x")}
                          | {input_index(a) for u in uses for a in u.args}))
    return Template(text, expr, uses, names, constants, inputs)


def _called_and_named(text: str) -> tuple[set, set]:
    """(names called, names read) in the template's syntax; empty where it does not parse."""
    try:
        tree = ast.parse(text.replace("^", "**").strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set(), set()
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - called
    return called, named


def check_template(text: str) -> None:
    """Refuse a malformed template before any data is read (its syntax, the reader's limits,
    placeholders called with names): every name it reads counts as an input here."""
    if not isinstance(text, str):
        raise SuperposError(f"a template must be a string, got {type(text).__name__}")
    from ..core.formula import _FORMULA_FUNCTIONS

    _, named = _called_and_named(text[:4000])
    parse_template(text, {n: sympy.Symbol(n, real=True) for n in named
                          if n not in ("c", "pi", "E") and n not in _FORMULA_FUNCTIONS})


def template_over_inputs(text: str, names: list[str]) -> tuple[str, list[str]]:
    """``text`` with the data's column ``names`` written x1, x2, ... (the library's inputs), and
    the columns it does not name. A column named like a function, a constant or a placeholder
    of the template is an error that says to rename it."""
    from ..core.formula import _FORMULA_FUNCTIONS

    if not isinstance(text, str):
        raise SuperposError(f"a template must be a string, got {type(text).__name__}")
    called, _ = _called_and_named(text[:4000])
    for name in names:
        if name in _FORMULA_FUNCTIONS or name in called or name in ("pi", "E", "c"):
            raise SuperposError(f"the column {name!r} is named like a function, a placeholder or a constant of the "
                                f"template {text[:100]!r}: rename the column")
    symbols = {f"x{j + 1}": sympy.Symbol(f"x{j + 1}", real=True) for j in range(len(names))}
    symbols.update({n: sympy.Symbol(f"x{j + 1}", real=True) for j, n in enumerate(names) if n.isidentifier()})
    parse_template(text, symbols)  # every error quotes the user's text
    tree = ast.parse(text.replace("^", "**").strip(), mode="eval")
    column = {n: f"x{j + 1}" for j, n in enumerate(names) if n.isidentifier()}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in column and node.id not in called:
            node.id = column[node.id]
    out = ast.unparse(tree)
    used = read_template(out, len(names)).inputs
    return out, [names[j] for j in range(len(names)) if j not in used]


def monomials(U: np.ndarray, degree: int) -> np.ndarray:
    """Monomials of the columns of U up to total ``degree``, the constant first."""
    n, k = U.shape
    cols = [np.ones(n)]
    for d in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(range(k), d):
            cols.append(np.prod(U[:, combo], axis=1))
    return np.column_stack(cols)


def _numeric(t: Template, extra: tuple = ()):
    """The template as a numpy function of (inputs..., one value per use, constants..., extra...)."""
    slots = [sympy.Symbol(f"_use{k}") for k in range(len(t.uses))]
    expr = t.expr.xreplace(dict(zip(t.uses, slots)))
    xs = [sympy.Symbol(f"x{j + 1}", real=True) for j in range(max(t.inputs, default=-1) + 1)]
    return sympy.lambdify(xs + slots + list(t.constants) + list(extra), expr, modules="numpy"), len(xs)


def fit_surrogates(t: Template, X: np.ndarray, y: np.ndarray, seed: int,
                   tuning: Tuning = TUNING) -> tuple[dict, np.ndarray, float] | None:
    """Least-squares fit of the template with each placeholder a polynomial surrogate (of total
    degree ``template_degrees`` by its number of inputs, 2 beyond): (per placeholder name, a
    function of X returning its values at each of its uses, the constants' values, the
    normalised error); None when no start gives finite values. The surrogates' constant terms
    carry a small ridge (``template_ridge``, on y over its standard deviation): the smallest
    among equal fits, so that f + g does not split as (f + 100) + (g - 100), nor f g as
    (100 f)(g / 100); only the constant terms, since a polynomial f absorbs a ridge on every
    coefficient (it moved exp(f(x1)) + c's constant by 3 %)."""
    from scipy.optimize import least_squares

    n = X.shape[0]
    f, m = _numeric(t)
    stats, size = {}, {}
    for name, args in t.names.items():
        k = len(args)
        degree = dict(tuning.template_degrees).get(k, 2)
        while degree > 1 and monomials(np.zeros((1, k)), degree).shape[1] * len(t.names) > n / 3:
            degree -= 1
        cols = [list(u.args) for u in t.uses if u.func.__name__ == name]
        pooled = np.concatenate([X[:, [input_index(a) for a in c]] for c in cols])
        stats[name] = (pooled.mean(axis=0), np.where(pooled.std(axis=0) > 0, pooled.std(axis=0), 1.0), degree)
        size[name] = monomials(np.zeros((1, k)), degree).shape[1]
    order = list(t.names)
    offsets = np.cumsum([0] + [size[nm] for nm in order])

    def design(Xr: np.ndarray) -> list[np.ndarray]:
        out = []
        for u in t.uses:
            mu, sd, degree = stats[u.func.__name__]
            out.append(monomials((Xr[:, [input_index(a) for a in u.args]] - mu) / sd, degree))
        return out

    Phi = design(X)
    index = [order.index(u.func.__name__) for u in t.uses]
    scale = float(np.std(y)) or 1.0

    def values(theta: np.ndarray, P: list[np.ndarray]) -> list[np.ndarray]:
        return [P[k] @ theta[offsets[i]:offsets[i + 1]] for k, i in enumerate(index)]

    def residual(params: np.ndarray) -> np.ndarray:
        theta, c = params[:offsets[-1]], params[offsets[-1]:]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = np.broadcast_to(f(*[X[:, j] for j in range(m)], *values(theta, Phi), *c), (n,))
        r = np.where(np.isfinite(v), (v - y) / scale, 1e6)
        return np.concatenate([r, tuning.template_ridge * theta[offsets[:-1]]])

    rng = np.random.default_rng(seed)
    best = None
    for start in range(3):
        theta = rng.normal(0.0, 0.1 if start else 0.0, offsets[-1])
        theta[offsets[:-1]] = 1.0 if start < 2 else rng.uniform(0.5, 2.0, len(order))
        p0 = np.concatenate([theta, np.ones(len(t.constants))])
        try:
            res = least_squares(residual, p0, method="lm", max_nfev=200 * (p0.size + 1))
        except (ValueError, np.linalg.LinAlgError):
            continue
        if np.all(np.isfinite(res.x)) and (best is None or res.cost < best.cost):
            best = res
    if best is None:
        return None
    theta, c = best.x[:offsets[-1]], best.x[offsets[-1]:]
    err = float(np.mean(best.fun[:n] ** 2))

    def surrogate(name: str):
        i = order.index(name)

        def at(Xr: np.ndarray) -> list[np.ndarray]:
            P = design(Xr)
            return [P[k] @ theta[offsets[i]:offsets[i + 1]] for k, u in enumerate(t.uses) if u.func.__name__ == name]
        return at

    return {nm: surrogate(nm) for nm in order}, c, err


def solved_for(t: Template, use) -> object | None:
    """The template solved for one placeholder call ``use``: a numpy function of (inputs...,
    the other uses' values..., constants..., y) giving its values, where sympy finds exactly
    one real solution quickly; else None."""
    from ..core.timecap import capped

    F, Y = sympy.Symbol("_F"), sympy.Symbol("_Y")
    others = [u for u in t.uses if u != use]
    slots = [sympy.Symbol(f"_use{k}") for k in range(len(others))]
    expr = t.expr.xreplace({use: F, **dict(zip(others, slots))})
    if expr.has(AppliedUndef) or not expr.has(F):
        return None
    try:
        sols = capped(lambda: sympy.solve(sympy.Eq(expr, Y), F), 2.0)
    except Exception:  # noqa: BLE001 - sympy gives up in many ways; the surrogate then serves
        return None
    if not sols or len(sols) != 1 or sols[0].has(sympy.I):
        return None
    xs = [sympy.Symbol(f"x{j + 1}", real=True) for j in range(max(t.inputs, default=-1) + 1)]
    return sympy.lambdify(xs + slots + list(t.constants) + [Y], sols[0], modules="numpy")
