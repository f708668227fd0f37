"""A wall-clock cap on a call that can run away (sympy on odd expressions can spin for
minutes): SIGALRM, so only in the main thread and when no other interval timer runs;
elsewhere the call runs uncapped."""
from __future__ import annotations

import signal
import threading
from typing import Callable, TypeVar

__all__ = ["capped", "cap_available", "CapExceeded"]

T = TypeVar("T")


class CapExceeded(Exception):
    """The capped call ran past its seconds."""


def cap_available(seconds: float) -> bool:
    """Whether :func:`capped` can cap a call of ``seconds`` here and now."""
    return (seconds > 0 and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0)  # never disturb a caller's own timer


def capped(fn: Callable[[], T], seconds: float) -> T:
    """``fn()``, raising :class:`CapExceeded` once it has run ``seconds`` of wall-clock time
    (where :func:`cap_available`; elsewhere uncapped)."""
    if not cap_available(seconds):
        return fn()

    def _alarm(signum, frame):
        raise CapExceeded()

    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
