"""Whether a found formula is the true one: exact recovery (constants to 3 significant digits,
sympy-equivalent on the problem's domain) and SRBench's looser "symbolic solution", each
sympy step under a time cap."""
from __future__ import annotations

import numpy as np
import sympy

from ..core.formula import parse_formula
from ..core.timecap import CapExceeded, cap_available, capped
from ..symreg.render import simplify_capped

__all__ = ["is_exact_recovery", "is_symbolic_solution"]


def _numeric(expr: sympy.Expr) -> sympy.Expr:
    """``expr`` with pi, e and surds as floats (sqrt(2*pi) is 2.50662827463100), the
    variables and their integer powers untouched."""
    try:
        return expr.evalf(15)
    except Exception:  # noqa: BLE001 - sympy can fail in many ways on odd input
        return expr


def _on_domain(expr: sympy.Expr, domain: dict) -> np.ndarray | None:
    """``expr`` (complex) at the points of ``domain`` ({variable name: values}); None when it
    reads a variable the domain lacks or numpy cannot evaluate it."""
    names = sorted(s.name for s in expr.free_symbols)
    if not domain or any(n not in domain for n in names):
        return None
    plain = expr.xreplace({s: sympy.Symbol(s.name) for s in expr.free_symbols})  # assumptions dropped
    try:
        f = sympy.lambdify([sympy.Symbol(n) for n in names], plain, modules=["numpy", "scipy"])
        with np.errstate(all="ignore"):
            return np.broadcast_to(np.asarray(f(*[domain[n] for n in names]), dtype=np.complex128),
                                   np.shape(next(iter(domain.values()))))
    except Exception:  # noqa: BLE001 - a formula numpy cannot evaluate is not judged
        return None


def _real(v: np.ndarray | None) -> bool:
    return v is not None and bool(np.all(np.isfinite(v)) and np.all(v.imag == 0))


def _without_abs(expr: sympy.Expr, domain: dict) -> sympy.Expr:
    """Each |e| whose argument e has one sign at every point of ``domain`` ({variable name:
    values}) written as e or -e: sqrt|x2^2 - x3^2| is sqrt(x3^2 - x2^2) where x2 < x3."""
    def resolve(arg):
        v = _on_domain(arg, domain)
        if _real(v):
            if np.all(v.real > 0):
                return arg
            if np.all(v.real < 0):
                return -arg
        return sympy.Abs(arg)

    return expr.replace(sympy.Abs, resolve)


def _rounded_number(f, digits: int, max_denominator: int = 12) -> sympy.Expr:
    """A number rounded to ``digits`` significant digits, as the exact rational of that
    decimal, or the small rational (denominator <= ``max_denominator``) with the same rounding
    (0.333 is 1/3). A function of the rounded decimal alone: two constants that agree to
    ``digits`` digits (12.557 and 4 pi) give the same number."""
    v = float(f)
    if not np.isfinite(v) or v == 0:
        return f if v else sympy.Integer(0)
    d = f"{v:.{digits}g}"
    q = sympy.Rational(d).limit_denominator(max_denominator)
    return q if f"{float(q):.{digits}g}" == d else sympy.Rational(d)


def _rounded(expr: sympy.Expr, digits: int, max_denominator: int = 12) -> sympy.Expr:
    """Every float of ``expr`` rounded (:func:`_rounded_number`)."""
    return expr.xreplace({f: _rounded_number(f, digits, max_denominator) for f in expr.atoms(sympy.Float)})


def _parsed(formula, digits: int) -> sympy.Expr:
    """A formula's text read with its decimals rounded as they are written (0.5 exp(-0.4 (x - 10))
    is exp(4 - 2 x / 5) / 2, before sympy merges 0.5 e^4 into 27.3); an expression as it is."""
    if not isinstance(formula, str):
        return formula
    return parse_formula(formula, numbers=lambda text: _rounded_number(sympy.Float(text), digits))


def _compared(predicted, true, positive, digits: int, domain: dict | None) -> tuple[sympy.Expr, sympy.Expr]:
    """``predicted`` and ``true`` as the recovery checks compare them: numbers rounded
    (:func:`_rounded`), |e| of one sign on ``domain`` dropped from the prediction, variables in
    ``positive`` positive and the others real."""
    pred = _parsed(predicted, digits)
    pred = _rounded(_numeric(_without_abs(pred, domain) if domain else pred), digits)
    true = _rounded(_numeric(_parsed(true, digits)), digits)
    return _with_assumptions(pred, true, positive)


def is_symbolic_solution(predicted, true, positive=(), digits: int = 3, seconds: float = 2.0,
                         domain: dict | None = None) -> bool:
    """SRBench's "symbolic solution" (La Cava et al. 2021), looser than
    :func:`is_exact_recovery`: ``predicted`` does not reduce to a constant and differs from
    ``true`` by an additive constant or a nonzero factor (1.01 sqrt(x1) for sqrt(x1)), numbers
    rounded as there; with ``domain``, constancy may also be seen numerically on its points."""
    pred, true = _compared(predicted, true, positive, digits, domain)
    if not pred.free_symbols:
        return False
    for gap, zero_ok in ((pred - true, True), (pred / true, False)):
        out = simplify_capped(gap, seconds)
        if not out.free_symbols and (zero_ok or out != 0):
            return True
        v = _on_domain(gap, domain) if domain else None
        if v is not None and np.all(np.isfinite(v)) and np.ptp(v.real) <= 1e-9 * max(1.0, float(np.abs(v).max())) \
                and not np.any(v.imag):
            return True
    return False


def _symbolic_number(f) -> sympy.Expr:
    """A float that is q pi^k (q a small rational, |k| <= 2) to 1e-9, written so; else itself:
    157.913670417427 is 16 pi^2, a fitted constant that holds the law's 1 / (4 pi) squared."""
    v = float(f)
    if not np.isfinite(v) or v == 0:
        return f
    for k in (0, 1, -1, 2, -2):
        q = sympy.Rational(v / float(sympy.pi**k)).limit_denominator(12)
        if q != 0 and abs(float(q * sympy.pi**k) - v) <= 1e-9 * abs(v):
            return q * sympy.pi**k
    return f


def _with_assumptions(pred: sympy.Expr, true: sympy.Expr, positive) -> tuple[sympy.Expr, sympy.Expr]:
    """Both expressions over the same symbols: the variables in ``positive`` positive, the
    others real."""
    names = {s.name for s in pred.free_symbols | true.free_symbols}
    sym = {n: sympy.Symbol(n, positive=True) if n in set(positive) else sympy.Symbol(n, real=True) for n in names}
    return pred.xreplace({s: sym[s.name] for s in pred.free_symbols}), true.xreplace({s: sym[s.name] for s in true.free_symbols})


def _unrounded(predicted, true, positive, domain: dict | None) -> tuple[sympy.Expr, sympy.Expr]:
    """``predicted`` and ``true`` with their numbers as written (the prediction's floats that
    are simple multiples of powers of pi written so), |e| of one sign on ``domain`` dropped, the
    variables' assumptions as in :func:`_compared`."""
    if isinstance(predicted, str):
        predicted = parse_formula(predicted, numbers=lambda text: _symbolic_number(sympy.Float(text, 15)))
    pred = _without_abs(predicted, domain) if domain else predicted
    pred = pred.xreplace({f: _symbolic_number(f) for f in pred.atoms(sympy.Float)})
    true = _parsed(true, 15)
    return _with_assumptions(pred, true, positive)


def is_exact_recovery(predicted, true, positive=(), digits: int = 3, seconds: float = 2.0,
                      domain: dict | None = None) -> bool:
    """True when ``predicted`` equals ``true`` as written (its floats that are simple multiples
    of pi^k taken so: :func:`_symbolic_number`), or when, its constants rounded to ``digits``
    significant digits (:func:`_rounded`), it simplifies to ``true``, whose numbers are rounded
    the same way (1/(4 pi) is 0.0796 on both sides, as a fitted constant is). The first catches
    what rounding breaks: 3 sin(2 x) / (8 pi) is 3 sin x cos x / (4 pi), but 0.119 x 2 is not
    0.239. Variables named in ``positive`` are declared positive (log|x| = log x there); with
    ``domain`` ({variable name: sample values}) an absolute value whose argument keeps one sign
    there is dropped (the formulas need only agree on the problem's domain). sympy works under
    a ``seconds`` cap; a timeout counts as not recovered."""
    if _identical(*_unrounded(predicted, true, positive, domain), seconds, domain):
        return True
    return _identical(*_compared(predicted, true, positive, digits, domain), seconds, domain)


def _identical(pred: sympy.Expr, true: sympy.Expr, seconds: float, domain: dict | None) -> bool:
    """Whether sympy shows pred - true = 0 (expansion, simplification, trigonometric expansion,
    hyperbolic functions as exponentials; radicals by their squares and signs on ``domain``)."""
    diff = pred - true
    if diff == 0:
        return True
    try:
        cheap = sympy.expand(sympy.expand_log(diff, force=True))
    except Exception:  # noqa: BLE001
        cheap = diff
    if cheap == 0:
        return True
    out = simplify_capped(cheap, seconds)
    if out == 0:
        return True
    try:  # expand_trig writes sin(628 x) as a polynomial of degree 628: capped too
        trig = capped(lambda: sympy.expand_trig(out), seconds) if cap_available(seconds) else out
    except CapExceeded:
        trig = out
    if simplify_capped(trig, seconds) == 0:
        return True
    if out.has(sympy.tanh, sympy.sinh, sympy.cosh):  # a tanh step is a logistic: 3/(1 + e^(-4.4 u)) - 1.1
        if simplify_capped(out.rewrite(sympy.exp), seconds) == 0:
            return True
    # radicals sympy does not combine (sqrt(a / b) against 1 / sqrt(c)): equal squares and,
    # on the domain, equal signs
    if domain and (pred.has(sympy.Pow) or true.has(sympy.Pow)) and _same_sign(pred, true, domain):
        square = sympy.expand(sympy.together(pred**2 - true**2))
        return square == 0 or simplify_capped(square, seconds) == 0
    return False


def _same_sign(a: sympy.Expr, b: sympy.Expr, domain: dict) -> bool:
    """Whether a and b are real and of the same sign at every point of ``domain``."""
    va, vb = _on_domain(a, domain), _on_domain(b, domain)
    return _real(va) and _real(vb) and bool(np.all(np.sign(va.real) == np.sign(vb.real)))
