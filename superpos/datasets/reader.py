"""Reading a user's data set: CSV/TSV with a header row, ``.npz``, or standard input."""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import numpy as np

from ..core.dataset import check_dataset
from ..exceptions import SuperposError

__all__ = ["read_dataset"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _parse_table(text: str, source: str):
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        raise SuperposError(f"{source}: the file is empty; give a header row and at least 5 data rows")
    delim = "\t" if "\t" in lines[0] else ","
    rows = list(csv.reader(lines, delimiter=delim))
    header = [h.strip() for h in rows[0]]
    if len(rows) == 1:
        raise SuperposError(f"{source}: only a header row; add at least 5 data rows")
    if len(header) < 2:
        raise SuperposError(f"{source}: one column only; give input columns and a target column (the last)")
    data = np.empty((len(rows) - 1, len(header)))
    for r, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise SuperposError(f"{source}: line {r} has {len(row)} cells, the header has {len(header)}")
        for c, cell in enumerate(row):
            try:
                data[r - 2, c] = float(cell)
            except ValueError:
                raise SuperposError(f"{source}: line {r}, column {header[c]!r}: {cell.strip()!r} is not a number") from None
    return header, data


def read_dataset(path: str, target: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Load (X, y, variable names) from a CSV/TSV file with a header row, an ``.npz``
    holding arrays ``X`` and ``y``, or ``-`` (CSV on standard input). The target is the
    last column unless ``target`` names another. Variable names are the header names
    when all are identifiers, else x1..xm."""
    if path == "-":
        source, text = "<stdin>", sys.stdin.read()
        header, data = _parse_table(text, source)
    else:
        p = Path(path)
        source = str(p)
        if not p.is_file():
            raise SuperposError(f"{source}: no such file")
        if p.suffix == ".npz":
            try:
                with np.load(p, allow_pickle=False) as z:
                    X, y = np.asarray(z["X"], dtype=float), np.asarray(z["y"], dtype=float)
            except (KeyError, ValueError, OSError) as exc:
                raise SuperposError(f"{source}: expected an .npz with arrays X (n, m) and y (n,): {exc}") from None
            if target is not None:
                raise SuperposError(f"{source}: --target applies to CSV/TSV; an .npz holds X and y")
            X, y = check_dataset(X, y)
            header = [f"x{k + 1}" for k in range(X.shape[1])] + ["y"]
            data = np.column_stack([X, y])
            target = "y"
        else:
            try:
                text = p.read_text()
            except UnicodeDecodeError:
                raise SuperposError(f"{source}: not a text file; give CSV, TSV or .npz") from None
            header, data = _parse_table(text, source)
    if target is None:
        t = len(header) - 1
    elif target in header:
        t = header.index(target)
    else:
        raise SuperposError(f"{source}: no column named {target!r} (columns: {', '.join(header)})")
    names = [h for k, h in enumerate(header) if k != t]
    X = np.delete(data, t, axis=1)
    y = data[:, t]
    X, y = check_dataset(X, y)
    if np.ptp(y) == 0:
        raise SuperposError(f"{source}: the target column is constant; there is no formula to find")
    if not all(_IDENT.match(n) for n in names) or len(set(names)) != len(names):
        names = [f"x{k + 1}" for k in range(X.shape[1])]
    return X, y, names
