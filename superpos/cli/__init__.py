"""The ``superpos`` command line: parses, calls the library, prints; nothing else.

``train`` holds the commands around the structure model (basis, generate, fit, evaluate),
``predict`` the formula of one data set or of a batch, ``progress`` the progress bars."""
from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Callable, NoReturn, Optional

import typer

from ..exceptions import SuperposError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None, help="Predict the structure of the formula behind a data set.")

_REPORT = "please report it with the command that caused it (superpos --version, python --version)"


def fail(exc: Exception) -> NoReturn:
    """Print one ``error:`` line and exit with status 2."""
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


def _pass_through() -> tuple:
    """The exits and usage errors of typer and of the click it runs on (a dependency of older
    typer releases, vendored as ``typer._click`` in newer ones): they end a command as they are."""
    out: tuple = (typer.Exit, typer.Abort, getattr(typer, "TyperException", typer.Exit))
    for name in ("click", "typer._click"):
        try:
            mod = __import__(f"{name}.exceptions", fromlist=["exceptions"])
        except ImportError:
            continue
        out += tuple(getattr(mod, k) for k in ("Exit", "Abort", "ClickException") if hasattr(mod, k))
    return out


_PASS_THROUGH = _pass_through()


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
        except KeyboardInterrupt:
            typer.echo("error: interrupted", err=True)
            raise typer.Exit(code=130) from None
        except MemoryError:
            fail(SuperposError("out of memory: use fewer points, a smaller --top-k or fewer --jobs"))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            fail(SuperposError(f"{where}{exc.strerror or exc}"))
        except Exception as exc:  # noqa: BLE001 - the boundary: no traceback reaches the user
            typer.echo(f"error: internal error ({type(exc).__name__}: {exc}); {_REPORT}", err=True)
            raise typer.Exit(code=3) from None

    return run


def command(**kwargs) -> Callable:
    """``@app.command()`` behind :func:`guarded`."""
    def register(f: Callable) -> Callable:
        return app.command(**kwargs)(guarded(f))

    return register


def check_folder(path: Optional[Path]) -> None:
    """Fail before long work, not after it, when an output path cannot be written."""
    if path is None:
        return
    if path.is_dir():
        raise SuperposError(f"cannot write {path}: it is a folder; give a file name")
    if not path.parent.is_dir():
        raise SuperposError(f"cannot write {path}: the folder {path.parent} does not exist")


def basis_from_option(names: Optional[str], n_variables: int):
    """The basis a command's ``--basis`` / ``--variables`` options name (default: the default basis)."""
    from ..core.basis import Basis

    if names:
        return Basis([n.strip() for n in names.split(",") if n.strip()], n_variables=n_variables)
    return Basis.default(n_variables=n_variables)


from . import predict, train  # noqa: E402,F401  (registers the commands on ``app``)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
