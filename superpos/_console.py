"""The ``superpos`` console script's entry: SIGINT and SIGTERM handlers installed before the
command line (typer, numpy, numba) is imported, so that an interrupt at any moment ends the
command with one line and exit 130 (143), then the command line itself (:mod:`superpos.cli`).
Kept free of imports beyond the standard library: it runs first."""
from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import NoReturn

__all__ = ["library_text_to_stderr", "main", "soft_interrupts"]

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

    try:
        app(prog_name="superpos")
    except SystemExit as exc:
        _end(exc.code)
    _end(0)


@contextmanager
def library_text_to_stderr():
    """Within this block file descriptor 1 is the standard error, so that text a compiled library
    writes there itself (LAPACK's ``** On entry to DLASCL ...``, a Fortran or C warning) never
    mixes with a formula, JSON or a batch's CSV; restored after. For a computation that writes
    nothing to Python's ``sys.stdout`` (which is flushed first). Left as it is where either
    stream is closed."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        os.dup2(2, 1)
    except OSError:
        os.close(saved)
        yield
        return
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _end(code) -> NoReturn:
    """Exit with ``code`` (a SystemExit's: None, a number or a message) without the interpreter's
    teardown when nothing else runs: the exit handlers run, the standard streams are flushed,
    then the process ends. Freeing every module's objects one by one (numba's and LLVM's
    registries, sympy, scikit-learn) is a large share of a one-file ``superpos predict``'s
    time, and every output is whole by then (atomic writes). With another thread still running
    (a batch's worker pool) the exit is Python's own, which joins it."""
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    if threading.active_count() > 1 or not hasattr(atexit, "_run_exitfuncs"):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be written
            if stream is sys.stdout and code == 0:
                code = 120  # Python's own status when flushing stdout fails at exit
    os._exit(code)
