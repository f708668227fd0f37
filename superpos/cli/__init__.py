"""The ``superpos`` command line: parses, calls the library, prints; nothing else.

``train`` holds the commands around the structure model (basis, generate, fit, evaluate),
``predict`` the formula of one data set or of a batch, ``progress`` the progress bars."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn, Optional

import typer

from ..exceptions import SuperposError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Predict the structure of the formula behind a data set.")


def fail(exc: Exception) -> NoReturn:
    """Print one ``error:`` line and exit with status 2."""
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=2)


def check_folder(path: Optional[Path]) -> None:
    """Fail before long work, not after it, when an output's folder is missing."""
    if path is not None and not path.parent.is_dir():
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
