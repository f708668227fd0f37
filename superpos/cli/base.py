"""What every command shares: the typer application with one-line usage errors, the guard that turns
any failure into one ``error:`` line and an exit status, and the option helpers."""
from __future__ import annotations

import functools
import sys
import warnings
from pathlib import Path
from typing import Callable, NoReturn, Optional

import typer
from typer.core import TyperGroup

from .. import __version__
from .._console import _Terminated, soft_interrupts  # noqa: F401 (soft_interrupts: for the commands)
from ..core.files import check_output, one_line
from ..exceptions import SuperposError

_REPORT = "please report it with the command that caused it (superpos --version, python --version)"
_MAX_MESSAGE = 400
"""Characters of an ``error:`` line at most (a 1 MB column name must not give a 1 MB line)."""


def _click_exceptions(*names: str) -> tuple:
    """The exception classes ``names`` of the click typer runs on (a dependency of older typer
    releases, vendored as ``typer._click`` in newer ones), from both where present."""
    out: tuple = ()
    for module in ("click", "typer._click"):
        try:
            mod = __import__(f"{module}.exceptions", fromlist=["exceptions"])
        except ImportError:
            continue
        out += tuple(getattr(mod, k) for k in names if hasattr(mod, k))
    return out


_PASS_THROUGH = (typer.Exit, typer.Abort, getattr(typer, "TyperException", typer.Exit)) \
    + _click_exceptions("Exit", "Abort", "ClickException")
_USAGE = _click_exceptions("ClickException")
_HELP = _click_exceptions("NoArgsIsHelpError")
_EXIT = (typer.Exit,) + _click_exceptions("Exit")
_ABORT = (typer.Abort,) + _click_exceptions("Abort")


def _error(message: str) -> None:
    typer.echo(f"error: {one_line(message, _MAX_MESSAGE)}", err=True)


def fail(exc: Exception) -> NoReturn:
    """Print one ``error:`` line (at most 400 characters) and exit with status 2."""
    _error(str(exc))
    raise typer.Exit(code=2)


class _OneLineGroup(TyperGroup):
    """typer's group, with its usage errors (an unknown option, a missing argument, a value of
    the wrong type) printed as one ``error:`` line instead of a usage block; exit status 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                              standalone_mode=False, **extra)
        except _HELP as exc:  # `superpos` alone: the help, as before
            exc.show()
            rv = 2
        except _USAGE as exc:
            hint = f" (see superpos {exc.ctx.info_name} --help)" if getattr(exc, "ctx", None) is not None \
                and exc.ctx.parent is not None else " (see superpos --help)"
            _error(f"{exc.format_message()}{hint}")
            rv = exc.exit_code
        except _ABORT:
            _error("interrupted")
            rv = 130
        except _EXIT as exc:
            rv = exc.exit_code
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(cls=_OneLineGroup, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None, help="Predict the structure of the formula behind a data set.")


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"superpos {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                       help="print the version and exit")) -> None:
    """Predict the structure of the formula behind a data set."""


def guarded(command: Callable) -> Callable:
    """The one boundary of every command: any exception becomes one ``error:`` line and a
    non-zero exit (2 for errors a user can cause, 3 for bugs, 130 for an interrupt)."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except _PASS_THROUGH:
            raise
        except SuperposError as exc:
            fail(exc)
        except _Terminated:
            _error("terminated")
            raise typer.Exit(code=143) from None
        except KeyboardInterrupt:
            _error("interrupted")
            raise typer.Exit(code=130) from None
        except MemoryError:
            fail(SuperposError("out of memory: use fewer points, a smaller --top-k or fewer --jobs"))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            fail(SuperposError(f"{where}{exc.strerror or exc}"))
        except Exception as exc:  # noqa: BLE001 - the boundary: no traceback reaches the user
            _error(f"internal error ({type(exc).__name__}: {one_line(exc, 200)}); {_REPORT}")
            raise typer.Exit(code=3) from None

    return quiet_numerics(run)


def quiet_numerics(command: Callable) -> Callable:
    """Run ``command`` with numpy's and Python's numeric warnings off: an overflow on the way to
    a result is handled where it matters (a candidate loses, a check refuses the data) and
    must not print a line with a source file's path."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return command(*args, **kwargs)

    return run


def command(**kwargs) -> Callable:
    """``@app.command()`` behind :func:`guarded`."""
    def register(f: Callable) -> Callable:
        return app.command(**kwargs)(guarded(f))

    return register


def check_folder(path: Optional[Path], inputs=(), what: str = "output") -> None:
    """Fail before long work, not after it, when an output path cannot be written or names an
    input (:func:`~superpos.core.files.check_output`)."""
    check_output(path, inputs, what)


def option_names(exc: SuperposError) -> SuperposError:
    """A settings error with the library's parameter names replaced by the command line's options."""
    text = str(exc).replace("None, an integer >= 0 or a numpy Generator", "an integer >= 0")
    text = text.replace("must be None or a positive number of seconds", "must be a positive number of seconds")
    for name, option in (("top_k", "--top-k"), ("search_rounds", "--search"), ("random_state", "--seed"),
                         ("max_fits", "--max-fits"), ("time_limit", "--time-limit"), ("selection", "--selection"),
                         ("proposers", "--proposers"), ("decompose_depth", "--decompose-depth")):
        text = text.replace(name, option)
    return SuperposError(text)


def basis_from_option(names: Optional[str], n_variables: int):
    """The basis a command's ``--basis`` / ``--variables`` options name (default: the default basis)."""
    from ..core.basis import Basis

    if names:
        return Basis([n.strip() for n in names.split(",") if n.strip()], n_variables=n_variables)
    return Basis.default(n_variables=n_variables)

