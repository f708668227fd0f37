"""The ``superpos`` console script's entry: SIGINT and SIGTERM handlers installed before the
command line (typer, numpy, numba) is imported, so that an interrupt at any moment ends the
command with one line and exit 130 (143), then the command line itself (:mod:`superpos.cli`).
Kept free of imports beyond the standard library: it runs first."""
from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager

__all__ = ["main", "soft_interrupts"]

_SOFT = [False]


class _Terminated(KeyboardInterrupt):
    """SIGTERM inside :func:`soft_interrupts` (exit 143, ``error: terminated``)."""


@contextmanager
def soft_interrupts():
    """Within this block a signal raises KeyboardInterrupt (exit 130 through the command line's
    boundary) instead of ending the process at once: for a main thread that only waits on
    worker processes, so that joblib stops and cleans up its workers (a hard exit leaves them
    running, holding the terminal's output open)."""
    _SOFT[0] = True
    try:
        yield
    finally:
        _SOFT[0] = False


def _on_signal(signum, frame) -> None:  # pragma: no cover - tested in a subprocess
    """End the command at once: ``error: interrupted`` (or ``terminated``), exit 130 (143).
    Python raises KeyboardInterrupt wherever the main thread stands, and in the middle of a
    compiled kernel's call that became a SystemError or a crash; exiting here never runs code
    in a half-updated state. Temporary files of writes under way are removed; outputs are
    whole or untouched (atomic writes; a batch keeps its finished rows for ``--resume``)."""
    if _SOFT[0]:
        raise KeyboardInterrupt if signum == signal.SIGINT else _Terminated
    remove = getattr(sys.modules.get("superpos.core.files"), "remove_pending", None)  # None while importing
    if remove is not None:
        try:
            remove()
        except Exception:  # noqa: BLE001 - nothing may stop the exit
            pass
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    try:  # on a terminal, below a progress bar's line
        os.write(2, f"{chr(10) if os.isatty(2) else ''}error: {word}\n".encode())
    except OSError:
        pass
    os._exit(128 + signum)


def main() -> None:  # pragma: no cover - the console script; tests run it in subprocesses
    """The ``superpos`` console script."""
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    from .cli import app  # deferred: start-up time (the signal handlers come first)

    app(prog_name="superpos")
