"""Rendering a fitted formula: constants rounded to simple numbers, and sympy's
simplification under a wall-clock cap (sympy can spin for minutes on odd input)."""
from __future__ import annotations

import signal
import threading

import numpy as np
import sympy

__all__ = ["round_constants", "simplify_capped"]


class _Timeout(Exception):
    pass


def simplify_capped(expr: sympy.Expr, seconds: float = 1.0, positive=()) -> sympy.Expr:
    """sympy.simplify under a wall-clock cap (SIGALRM, so only in the main thread and when
    no other interval timer is running; otherwise ``expr`` comes back as it is). Returns
    ``expr`` unchanged on timeout or when simplify makes it longer.
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
    out = e
    usable = (seconds > 0 and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
              and signal.getitimer(signal.ITIMER_REAL)[0] == 0)  # never disturb a caller's own timer
    if usable:
        def _alarm(signum, frame):
            raise _Timeout()

        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            out = sympy.simplify(e)
            if sympy.count_ops(out) > sympy.count_ops(e):
                out = e
        except _Timeout:
            out = e
        except Exception:  # noqa: BLE001 - sympy can fail in many ways on odd input
            out = e
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    if hidden is not None:
        out = out.replace(*hidden)
    return out.xreplace(back) if back else out


def round_constants(expr: sympy.Expr, digits: int = 3, max_denominator: int = 12,
                    keep_floats: bool = False) -> sympy.Expr:
    """Floats within ``digits`` significant digits of a small rational (denominator <=
    ``max_denominator``) become that rational; the others become the exact rational of
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
        return f if keep_floats else sympy.Rational(f"{v:.{digits}g}")

    return expr.xreplace({f: fix(f) for f in expr.atoms(sympy.Float)})
