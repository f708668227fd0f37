"""Numbers and small formula pieces written as a scientist writes them: the shortest decimal
of a fitted value (or a short fraction), a coefficient, an offset, a shift and a power, and the
digits a set of parameters takes to write (the textbook forms of :mod:`.families` compete on
it, and :mod:`.snapping` orders a family's candidate parameters by it)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["shortest", "digits_cost", "times", "plus", "shifted", "power"]


def shortest(v: float, rtol: float = 1e-6) -> str:
    """The shortest decimal of ``v`` within ``rtol`` (relative): 99.0000001 is 99, 0.30000004
    is 0.3; a fraction of denominator at most 12 that no short decimal writes, in parentheses:
    (1/6), -(13/3)."""
    v = float(v)
    if v == 0 or not np.isfinite(v):
        return repr(v) if not np.isfinite(v) else "0"
    f = Fraction(v).limit_denominator(12)
    if f.denominator > 1 and float(f) == v and abs(f.numerator) < 1000 and float(f"{v:.4g}") != v:  # 1/6, not 0.1666667; 0.25 stays
        return f"({f})" if f > 0 else f"-({-f})"
    for d in range(1, 16):
        s = f"{v:.{d}g}"
        if abs(float(s) - v) <= rtol * abs(v):
            break
    if "e" in s:
        m, e = s.split("e")
        s = np.format_float_positional(float(s), trim="-") if -5 <= int(e) < 16 else f"{m}e{int(e)}"
    return s[:-2] if s.endswith(".0") else s


def _digits(v: float) -> int:
    """Significant digits as written: 0.035 and 1950 take 2 and 3 (an integer's trailing zeros
    are not digits of its precision: 1950 is 1.95e3)."""
    s = shortest(v).lstrip("-").split("e")[0]
    s = s.replace(".", "").lstrip("0") if "." in s else s.lstrip("0").rstrip("0")
    return max(1, len(s))


def digits_cost(values) -> int:
    """The digits a textbook form's parameters take to write (the forms compete on it)."""
    return sum(_digits(float(v)) for v in values)


def times(a: float, rest: str) -> str:
    """a*rest, with a = 1 and -1 written as nothing and -."""
    s = shortest(a)
    return rest if s == "1" else f"-{rest}" if s == "-1" else f"{s}*{rest}"


def plus(text: str, v: float) -> str:
    """text + v, text - |v| for a negative v, text alone for 0."""
    s = shortest(v)
    return text if s == "0" else f"{text} - {s[1:]}" if s.startswith("-") else f"{text} + {s}"


def shifted(x: str, x0: float) -> str:
    """(x - x0) written with its sign: (x - 4.2), (x + 1.3), x for 0."""
    s = shortest(x0)
    return x if s == "0" else f"({x} + {s[1:]})" if s.startswith("-") else f"({x} - {s})"


def power(base: str, n: float) -> str:
    """base**n, base for n = 1, a negative n in parentheses."""
    s = shortest(n)
    return base if s == "1" else f"{base}**{s}" if not s.startswith("-") else f"{base}**({s})"
