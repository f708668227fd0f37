"""Trees and sympy: rendering, reading back and canonical labels.

``to_sympy`` renders a prefix tree (protected functions render as they evaluate: log(Abs(u)), sqrt(Abs(u)));
``from_sympy`` writes an expression back as a tree over a basis; ``canonicalize`` repeats the round trip to a
fixed point, so x + x and 2*x get one label. Formulas typed as text are read by :mod:`.formula`.
"""
from __future__ import annotations

import numpy as np
import sympy

from ..exceptions import NotRepresentable, SuperposError
from .basis import Basis
from .formula import parse_formula
from .tree import check_tree

__all__ = ["to_sympy", "from_sympy", "rewritten", "canonicalize"]


def to_sympy(tree, basis: Basis, constants=None) -> sympy.Expr:
    """Render the tree as a sympy expression; ``c`` leaves and the nodes' own constants
    (``powc``'s exponent) become ``constants`` (numbers) or, when None, the symbols c0, c1, ...
    in prefix order."""
    t = check_tree(tree, basis.arities)
    n_c = basis.n_constants(t)
    if constants is None:
        consts = list(sympy.symbols(f"c0:{n_c}")) if n_c else []
    else:
        consts = [v if isinstance(v, sympy.Basic) else sympy.Float(float(v)) for v in np.ravel(constants)]
        if len(consts) != n_c:
            raise SuperposError(f"the tree has {n_c} constants but {len(consts)} values were given")
    ci = n_c
    stack: list[sympy.Expr] = []
    for c in t[::-1]:
        f = basis.functions[c]
        if f.kind == "variable":
            stack.append(basis.variables[f.index])
        elif f.kind == "number":
            stack.append(f.sympy)
        elif f.kind == "constant":
            ci -= 1
            stack.append(consts[ci])
        else:
            args = [stack.pop() for _ in range(f.arity)]
            if f.fitted:
                ci -= 1
                args.append(consts[ci])
            stack.append(f.sympy(*args))
    return stack[0]


# ---------------------------------------------------------------- sympy -> tree

class _Builder:
    """Deterministic sympy -> prefix list over a basis (one tree per sympy expression)."""

    def __init__(self, basis: Basis, shared_powers: bool = True):
        self.b = basis
        self.shared_powers = shared_powers
        self.var = {str(v): basis.index(str(v)) for v in basis.variables if basis.has(str(v))}
        self.consts: list = []
        self._fclass = {}
        probe = sympy.Symbol("u")
        for f in basis.functions:
            if f.kind == "function" and f.arity == 1 and not f.fitted and f.name not in ("neg", "pow2", "pow3", "sqrt",
                                                                                             "log"):
                e = f.sympy(probe)
                if isinstance(e, sympy.Function) and e.args == (probe,):
                    self._fclass[e.func] = f.name
            elif f.kind == "function" and f.arity >= 2 and f.name not in ("add", "sub", "mul", "div"):
                e = f.sympy(*sympy.symbols(f"u0:{f.arity}"))
                if isinstance(e, sympy.Function):
                    self._fclass[e.func] = f.name

    def op(self, name: str, *args: list[int]) -> list[int]:
        if not self.b.has(name):
            raise NotRepresentable(f"needs {name!r}, which is not in the basis")
        out = [self.b.index(name)]
        for a in args:
            out += a
        return out

    def number(self, v: sympy.Expr) -> list[int]:
        for k in (1, 2):
            if v == k and self.b.has(str(k)):
                return [self.b.index(str(k))]
            if v == -k and self.b.has(str(k)) and self.b.has("neg"):
                return self.op("neg", [self.b.index(str(k))])
        if self.b.constant < 0:
            if v.is_Integer and 2 < v <= 100 and self.b.has("add") and self.b.has("1"):
                return self.op("add", self.number(v - 1), self.number(sympy.Integer(1)))
            raise NotRepresentable(f"the number {v} needs the free constant c")
        self.consts.append(v)
        return [self.b.constant]

    def power(self, base: list[int], n: int) -> list[int]:
        if n > 100:
            raise NotRepresentable(f"the power {n} is too large for a tree")
        if n == 1:
            return base
        if n == 2 and self.b.has("pow2"):
            return self.op("pow2", base)
        if n == 3 and self.b.has("pow3"):
            return self.op("pow3", base)
        if n % 3 == 0 and self.b.has("pow3"):
            return self.op("pow3", self.power(base, n // 3))
        if n % 2 == 0 and self.b.has("pow2"):
            return self.op("pow2", self.power(base, n // 2))
        return self.op("mul", base, self.power(base, n - 1))

    def shared_power(self, e: sympy.Expr) -> list[int] | None:
        """A product whose factors share a power k (an integer k >= 2, or 1/2), u^k v^k / w^k,
        as (u v / w)^k: sympy distributes an integer power over a product (((x2 - x3) / x1)^2
        is (x2 - x3)^2 / x1^2) and keeps sqrt|x1| sqrt|x2| apart (the tree's root is of |u|, so
        sqrt|u| sqrt|v| = sqrt|u v| exactly), which would cost the tree a node per factor beyond
        the first (a Gaussian of a group would be longer than a cosine of it). None where no
        power is shared by two factors."""
        def shared(f):
            if not f.is_Pow or f.base is sympy.E:
                return None
            if f.exp.is_Integer and abs(int(f.exp)) >= 2:
                return sympy.Integer(abs(int(f.exp)))
            return sympy.Rational(1, 2) if f.exp in (sympy.Rational(1, 2), sympy.Rational(-1, 2)) else None

        factors = sympy.Mul.make_args(e)
        powers = [shared(f) for f in factors]
        for k in sorted(set(powers) - {None}):
            group = [f for f, p in zip(factors, powers) if p == k]
            if len(group) < 2 or all(f.exp < 0 for f in group):
                continue
            bases = [f.base.args[0] if k < 1 and isinstance(f.base, sympy.Abs) else f.base for f in group]
            inner = sympy.Mul(*[b if f.exp > 0 else 1 / b for b, f in zip(bases, group)])
            rest = sympy.Mul(*[f for f in factors if f not in group])
            num, den = sympy.fraction(rest, exact=True)
            if den == 1 or den.is_Number:
                num, den = rest, sympy.Integer(1)
            # built in prefix order: the constants are numbered as the tree reads them
            top = [] if num == 1 else self.build(num)
            root = self.build(inner)
            root = self.op("sqrt", root) if k < 1 else self.power(root, int(k))
            top = root if num == 1 else self.op("mul", top, root)
            return top if den == 1 else self.op("div", top, self.build(den))
        return None

    def build(self, e: sympy.Expr) -> list[int]:
        b = self.b
        if e.is_Symbol:
            name = str(e)
            if name in self.var:
                return [self.var[name]]
            if _constant_symbol(e) and b.constant >= 0:
                self.consts.append(e)
                return [b.constant]
            raise NotRepresentable(f"unknown symbol {name!r}")
        if e.is_Number:
            if e == 0:
                raise NotRepresentable("the number 0 has no leaf")
            return self.number(e)
        if e.is_Add:
            terms = sorted(e.args, key=sympy.default_sort_key)
            pos = [t for t in terms if not t.could_extract_minus_sign()]
            neg = [-t for t in terms if t.could_extract_minus_sign()]
            if not pos:
                return self.op("neg", self.build(sympy.Add(*neg)))
            acc = self.build(pos[0])
            for t in pos[1:]:
                acc = self.op("add", acc, self.build(t))
            for t in neg:
                acc = self.op("sub", acc, self.build(t)) if b.has("sub") else self.op("add", acc, self.op("neg", self.build(t)))
            return acc
        if e.is_Mul:
            coeff, rest = e.as_coeff_Mul()
            if coeff.is_negative and b.has("neg") and (coeff == -1 or -coeff in (1, 2) or b.constant < 0):
                return self.op("neg", self.build(-e))
            shared = self.shared_power(e) if self.shared_powers else None
            if shared is not None:
                return shared
            num, den = sympy.fraction(e, exact=True)
            if den != 1 and not den.is_Number:
                return self.op("div", self.build(num), self.build(den))
            factors = list(sympy.Mul.make_args(e))
            nums = [f for f in factors if f.is_Number]
            rest = sorted((f for f in factors if not f.is_Number), key=sympy.default_sort_key)
            parts = ([self.number(sympy.Mul(*nums))] if nums and sympy.Mul(*nums) != 1 else []) + [self.build(f) for f in rest]
            acc = parts[0]
            for p in parts[1:]:
                acc = self.op("mul", acc, p)
            return acc
        if e.is_Pow:
            base, ex = e.args
            if base is sympy.E:
                return self.op("exp", self.build(ex))
            if ex.is_Integer:
                n = int(ex)
                if n < 0:
                    return self.op("div", self.number(sympy.Integer(1)), self.power(self.build(base), -n))
                return self.power(self.build(base), n)
            if ex.is_Rational and ex.q == 2:
                inner = base.args[0] if isinstance(base, sympy.Abs) else base
                root = self.op("sqrt", self.build(inner))
                if ex.p < 0:
                    return self.op("div", self.number(sympy.Integer(1)), self.power(root, -int(ex.p)))
                return self.power(root, int(ex.p))
            inner = base.args[0] if isinstance(base, sympy.Abs) else base
            if b.has("powc") and (ex.is_Number or _constant_symbol(ex)):  # |u|^a: the node's own constant a
                self.consts.append(ex)  # numbered before the constants of its argument (prefix order)
                return [b.index("powc")] + self.build(inner)
            if all(b.has(n) for n in ("exp", "log", "mul")):  # |u|^a, the exponent a fitted constant
                return self.op("exp", self.op("mul", self.build(ex), self.op("log", self.build(inner))))
            raise NotRepresentable(f"the power {e} has no basis function")
        if isinstance(e, sympy.log):
            arg = e.args[0]
            return self.op("log", self.build(arg.args[0] if isinstance(arg, sympy.Abs) else arg))
        if isinstance(e, sympy.exp):
            return self.op("exp", self.build(e.args[0]))
        if e.func in self._fclass:
            return self.op(self._fclass[e.func], *[self.build(a) for a in e.args])
        raise NotRepresentable(f"{e.func.__name__} is not in the basis")


def _constant_symbol(e: sympy.Expr) -> bool:
    """A symbol that names a free constant: c, c0, c1, ..."""
    name = str(e)
    return e.is_Symbol and (name == "c" or (name.startswith("c") and name[1:].isdigit()))


def _fold_number(e: sympy.Expr) -> sympy.Float:
    v = e.evalf()
    if not (v.is_Number and v.is_finite and v.is_real):
        raise NotRepresentable(f"the constant {e} is not a finite real number")
    return sympy.Float(v)


def from_sympy(expr, basis: Basis, shared_powers: bool = True) -> tuple[np.ndarray, list]:
    """Write a sympy expression as a tree over ``basis``: returns (tree, constants).

    Numbers other than the basis's own (1, 2) become ``c`` leaves and are returned in
    prefix order, as are symbols named c, c0, c1, ...; ``x1**2`` becomes pow2(x1), a power
    with another exponent ``x1**0.45`` powc(x1) where the basis has it, else
    exp(mul(c, log(x1))) (|x1|^c: the exponent a constant),
    ``x1 - x2`` sub(x1, x2), ``x1/2`` mul(c, x1), ``x1**2 / x2**2`` pow2(div(x1, x2)) (a power
    shared by factors is one node, :meth:`_Builder.shared_power`; ``shared_powers=False``
    writes each factor's own, as the corpus labels are). Raises :class:`NotRepresentable`.
    """
    if isinstance(expr, str):
        expr = parse_formula(expr, {str(v): v for v in basis.variables})
    if not isinstance(expr, sympy.Basic):
        raise SuperposError(f"expected a sympy expression or a formula string, got {type(expr).__name__}")
    own = {str(v): v for v in basis.variables}
    renamed = {s: own[str(s)] for s in expr.free_symbols if str(s) in own and own[str(s)] != s}
    expr = expr.xreplace(renamed) if renamed else expr
    expr = expr.replace(lambda e: isinstance(e, sympy.Expr) and not e.is_Atom and not e.free_symbols,
                        _fold_number)
    if expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise NotRepresentable(f"{expr} is not finite")
    builder = _Builder(basis, shared_powers)
    tree = np.array(builder.build(expr), dtype=np.int64)
    return tree, builder.consts


def rewritten(tree, basis: Basis, constants, rewrite, target: Basis | None = None):
    """The tree and float constants, over ``target`` (default ``basis``), of the formula
    ``rewrite(expr)`` made from the fitted formula ``expr`` (``tree`` with ``constants``):
    the same law in other units, times a factor, with its inputs substituted. None when the
    result has no tree over ``target`` (sympy folds scales into the constants, so x1/1000
    becomes 0.001*x1)."""
    try:
        raw, consts = from_sympy(rewrite(to_sympy(tree, basis, constants)), target or basis)
    except (NotRepresentable, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None
    return raw, np.array([float(c) for c in consts], dtype=np.float64)


def canonicalize(tree, basis: Basis, constants=None) -> tuple[np.ndarray, list]:
    """The canonical tree of a formula: rendered by sympy (which merges x + x into 2*x,
    folds constant subtrees into one number, orders commutative arguments) and read back,
    repeated until it no longer changes. Returns (tree, constants). Powers shared by factors
    stay on each factor (x1^2 / x2^2 is div(pow2(x1), pow2(x2))): these are the corpus's labels,
    the trees the shipped model was trained to decode."""
    t = check_tree(tree, basis.arities)
    n_c = basis.n_constants(t)
    if constants is None:
        constants = [1.2345 + 0.1 * k for k in range(n_c)]
    for _ in range(4):
        t2, constants = from_sympy(to_sympy(t, basis, constants), basis, shared_powers=False)
        if np.array_equal(t2, t):
            return t2, constants
        t = t2
    raise NotRepresentable("the formula has no stable canonical tree")


