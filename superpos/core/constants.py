"""Simple values a fitted constant may stand for: 0, integers, small fractions, small
rational multiples of powers of pi (the laws of physics are full of 4 pi, 1/(2 pi) and
1/sqrt(2 pi)) and of sqrt(2), short decimals. Constant snapping and the rendering of formulas
share them."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy

__all__ = ["simple_values", "pi_multiple", "number_code"]

_IRRATIONALS = (  # powers of pi, then sqrt(2): sqrt(1 + 2 z) may fit as sqrt(2) sqrt(1/2 + z)
    (sympy.pi, np.pi),
    (1 / sympy.pi, 1 / np.pi),
    (sympy.pi**2, np.pi**2),
    (1 / sympy.pi**2, 1 / np.pi**2),
    (sympy.sqrt(2 * sympy.pi), np.sqrt(2 * np.pi)),
    (1 / sympy.sqrt(2 * sympy.pi), 1 / np.sqrt(2 * np.pi)),
    (sympy.sqrt(2), np.sqrt(2)),
)


def _short_fraction(v: float, max_denominator: int, denominators=None) -> list[Fraction]:
    """Fractions near v written with at most 3 digits (5/12, 28/3; not 69/11 or 13/12, which
    say no more than 6.27 or 1.08)."""
    out = []
    for d in denominators or (max_denominator,):
        f = Fraction(v).limit_denominator(d)
        if f and len(str(abs(f.numerator))) + len(str(f.denominator)) <= 3:
            out.append(f)
    return out


_PI_FACTORS = sorted({Fraction(a, b) for a in (1, 2, 3, 4, 6, 8) for b in (1, 2, 3, 4, 6, 8)})
"""The fractions that multiply a power of pi: 4 pi, pi/2, 4 pi/3, 1/(6 pi) (Larmor's), pi^2/6,
1/(8 pi), not 14/(5 pi)."""


def _pi_candidates(v: float) -> list[tuple[float, sympy.Expr]]:
    """f p within 2 % of v, f in ``_PI_FACTORS`` (or its negative), p in ``_IRRATIONALS``."""
    out = []
    for sym, num in _IRRATIONALS:
        r = abs(v) / num
        f = min(_PI_FACTORS, key=lambda f: abs(float(f) - r))
        if abs(float(f) - r) <= 0.02 * r:
            s = 1 if v > 0 else -1
            out.append((float(s * float(f) * num), s * sympy.Rational(f.numerator, f.denominator) * sym))
    return out


def pi_multiple(v: float, rtol: float) -> sympy.Expr | None:
    """f p within ``rtol`` of v (relative), f a fraction of 1, 2, 3, 4, 6, 8 and p a power of pi
    (pi, 1/pi, pi^2, 1/pi^2, sqrt(2 pi), 1/sqrt(2 pi)) or sqrt(2), the first in that order;
    else None."""
    if not np.isfinite(v) or v == 0:
        return None
    for q, expr in _pi_candidates(v):
        if abs(q - v) <= rtol * abs(v):
            return expr
    return None


def simple_values(v: float, max_denominator: int = 12, pi: bool = True) -> list[float]:
    """Candidate simple values near v: 0, the nearest integer, short fractions, (with ``pi``)
    short fractions times a power of pi, decimals of 1-3 significant digits; the shortest to
    write first (:func:`number_code`: 2.2 before 13/6), the nearer first among equals."""
    out = [0.0, float(round(v))]
    if abs(v) < 10:  # beyond 10 only integers: the grid of small fractions is too fine to mean anything
        out += [float(f) for f in _short_fraction(v, max_denominator, (2, 3, 4, 6, max_denominator))]
    if pi and v != 0 and np.isfinite(v):
        out += [q for q, _ in _pi_candidates(v)]
    out += [float(f"{v:.{d}g}") for d in (1, 2, 3)] if np.isfinite(v) else []
    uniq = list(dict.fromkeys(out))
    cost = [number_code(q) for q in uniq]
    order = sorted(range(len(uniq)), key=lambda k: (math.inf if cost[k] is None else cost[k], abs(uniq[k] - v)))
    return [uniq[k] for k in order]


def number_code(q: float) -> float | None:
    """Nats to write a simple number q (an integer or short fraction, one of them times a power
    of pi or of sqrt(2) as in :func:`pi_multiple` (pi and 1/pi cost log 2 more: 1/(4 pi) of
    Coulomb's constant is as common in physics as 4 pi; the rarer pi^2, 1/pi^2, sqrt(2 pi),
    1/sqrt(2 pi) and sqrt(2) log 20: on noisy data 0.8 is likelier than sqrt(2/pi) = 0.7979), a
    decimal of 1-3 significant digits),
    the shorter where it is both (1000 as 1e3, not as the integer beside 999); None when q is
    none of them (a free constant)."""
    if q == 0:
        return math.log(2)
    if not math.isfinite(q):
        return None
    codes = []
    extras = tuple((num, math.log(2 if k <= 1 else 20)) for k, (_, num) in enumerate(_IRRATIONALS))
    for factor, extra in ((1.0, 0.0),) + extras:
        fr = Fraction(q / factor).limit_denominator(12)
        if fr and abs(float(fr) * factor - q) <= 1e-12 * abs(q) and abs(fr.numerator) <= 10**6:
            codes.append(math.log(2) + math.log1p(abs(fr.numerator)) + math.log(fr.denominator) + extra)
            break
    for d in (1, 2, 3):
        if float(f"{q:.{d}g}") == q:
            e = int(math.floor(math.log10(abs(q))))
            codes.append(math.log(2) + d * math.log(10) + math.log1p(abs(e)))
            break
    return min(codes) if codes else None
